// Package election runs leader elections on etcd, the right way and the
// wrong ways, behind one small interface so scenarios can run a user's
// own recipe beside them.
//
// A candidate is an Elector. Campaign blocks until it leads and returns a
// Leadership: its Term (the leader key's create revision, which grows from
// leader to leader), its Value, Proclaim to change the value, Resign, and
// Done, closed when leadership may be lost. A leader must stop acting as
// one when Done closes; nothing in etcd stops it for it. Campaign and
// Close are all an Elector must have; reading the leader (LeaderReader)
// and following it (Observer) are optional. Every recipe here has both,
// and the scenarios' observers use whichever a user's own recipe offers.
//
//	e, err := election.NewRechecked(cli, "/jobs/leader", election.Options{TTL: 5 * time.Second})
//	if err != nil { ... }
//	defer e.Close()
//	l, err := e.Campaign(ctx, "worker-1")
//	if err != nil { ... }
//	for {
//		select {
//		case <-l.Done():
//			return // leadership may be lost: stop leading
//		case job := <-jobs:
//			run(job, l.Term()) // fence side effects with the term
//		}
//	}
//
// Correct recipes: NewRechecked (concurrency.Election, with the lease
// guarded and the key rechecked after the wait) and NewServer (etcd's
// election service, guarded the same way). The deliberately broken ones
// are not exported: a broken recipe is reached by name, through the
// registry, so that nobody builds one by accident. They are "modrevision",
// "ignoresdone", "unchecked" (the upstream Campaign as is) and
// "missed-wakeup", each in a file broken_*.go whose constructor's doc
// comment begins "BROKEN (deliberately):" and says what breaks. Recipes
// lists the gallery, UpstreamRecipes the reproductions of reports against
// etcd, and Lookup finds any of them:
//
//	r, err := election.Lookup("modrevision")
//	e, err := r.New(cli, "/jobs/leader", election.Options{})
//
// Wrong input is an error, never a silent no-op: an empty prefix
// (ErrBadPrefix), a TTL that is not whole seconds or that the cluster
// would raise to its minimum (ErrBadTTL), a Proclaim or Resign by a
// leadership that has ended (ErrNotLeader).
package election
