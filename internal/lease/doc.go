// Package lease is the one lease guard that etcdsim's lock, election and
// discovery recipes share: it grants an etcd lease, keeps it alive, and
// knows, by its own clock alone, until when the lease is certainly alive
// on the cluster.
//
// A Guard's Done closes no later than the cluster could have expired the
// lease. It counts the TTL from the moment it *sent* the last renewal that
// was acknowledged (the server renewed later than that, so its expiry is
// later still), never from the moment the answer arrived, and closes Done
// a quarter of the TTL before that bound (see Guard for why). Done also closes when the
// lease is gone (revoked, or expired on the cluster) and when the guard is
// stopped. A holder that stops acting as one when Done closes never acts
// on a lease the cluster may have expired.
//
// concurrency.Session is not enough for that: its Done relies on the
// client's lessor, which counts the TTL from the receipt of the last
// answer and checks only twice a second; until the first answer it assumes
// a 5 s TTL whatever the lease's own. A holder whose answers come late,
// then not at all, learns of its loss after the cluster has given the
// lock, or the leadership, to someone else.
//
// Use:
//
//	g, err := lease.Grant(ctx, cli, 5*time.Second) // whole seconds, at least 1s
//	if err != nil { ... }                          // errors.Is(err, lease.ErrTTL) for a bad TTL
//	defer g.Close(ctx)                             // stop renewing and revoke
//	_, err = cli.Put(ctx, "k", "v", clientv3.WithLease(g.ID()))
//	select {
//	case <-g.Done(): // the lease may be gone: stop using it
//	case <-work:
//	}
//
// Recipes built on concurrency.Mutex or concurrency.Election get a
// concurrency.Session on the guard's lease from Session; it stops with the
// guard.
package lease
