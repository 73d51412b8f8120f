// Package lease is the lease guard that every recipe etcdsim ships — lock,
// election and discovery — is built on, and that a user's own recipe can
// be built on too: it grants an etcd lease, keeps it alive, and knows, by
// its own clock alone, until when the lease is certainly alive on the
// cluster. A holder that stops acting as one when the guard's Done closes
// never acts on a lease the cluster may already have expired.
//
// # Why not concurrency.Session.Done
//
// The pattern etcd's documentation shows — a concurrency.Session, and its
// Done as the signal to stop — closes Done late, often after the cluster
// has expired the lease and given the lock, or the leadership, to someone
// else:
//
//   - Session.Done closes when clientv3's lessor gives up on the lease's
//     keep-alive. The lessor sets the deadline to a TTL after an answer
//     *arrives* (a late answer on a slow link moves it later than the
//     server's expiry), assumes a 5 s TTL until the first answer whatever
//     the lease's own, and checks deadlines only once a second. So Done
//     closes about a second or more after the server may have expired the
//     lease. Measured by users with an election under a paused leader:
//     Done closed about 2 s after the pause, while the next leader had
//     already won at 1.44 s — two leaders.
//   - A session's lease lives as long as something keeps it alive. A
//     concurrency.Mutex whose Unlock is stuck on a proposal dropped by a
//     leader change (about 5 s) keeps its session — and so the key —
//     alive, while its caller believes it has released.
//
// # What the guard does instead
//
// A Guard keeps its own deadline from the grant and renewal responses, on
// its own clock: it counts the TTL from the moment it *sent* the last
// renewal that was acknowledged (the server renewed later than that, so its
// expiry is later still), never from the moment the answer arrived, and
// closes Done a quarter of the TTL before that bound (see Guard for the
// argument). Done also closes when a renewal finds the lease gone (revoked,
// or expired on the cluster) and when the guard is stopped. Close revokes
// the lease, bounded by the TTL, so a release never waits on a lease it no
// longer needs.
//
// Use:
//
//	g, err := lease.Grant(ctx, cli, 5*time.Second) // whole seconds, at least 1s
//	if err != nil { ... }                          // errors.Is(err, lease.ErrBadTTL) for a bad TTL
//	defer g.Close(ctx)                             // stop renewing and revoke
//	_, err = cli.Put(ctx, "k", "v", clientv3.WithLease(g.ID()))
//	select {
//	case <-g.Done(): // the lease may be gone: stop using it
//	case <-work:
//	}
//
// A recipe built on concurrency.Mutex or concurrency.Election gets a
// concurrency.Session on the guard's lease from Session; it stops with the
// guard. Watch the guard's Done, not the session's. The package example
// builds a whole lock on a guard.
package lease
