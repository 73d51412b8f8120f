// Package barrier holds barrier recipes on etcd, built on the unmodified
// client/v3/experimental/recipes, each kind behind one small interface
// so that a user's own barrier can be judged the same way.
//
// A double barrier (DoubleBarrier) lets a fixed number of processes, its
// count, start a phase of work together (Enter returns once count of them
// have entered) and end it together (Leave returns once all of them have
// left). etcd's recipe keeps one key per process on the process's session
// lease under <name>/waiters, and a <name>/ready key that the last to
// enter puts.
//
//	r, err := barrier.Lookup("checked")
//	b, err := r.New(cli, "phase", 3, lock.Options{TTL: 2 * time.Second})
//	err = b.Enter(ctx) // returns once 3 have entered
//	err = b.Leave(ctx) // returns once all 3 have left
//
// A plain barrier (Barrier) holds any number of processes back until one
// lets them go: Hold puts it up (ErrHeld if it is up already), Release
// takes it down, and Wait returns once it is down — at once if it is.
// etcd's recipe is one key, with no lease: it stays up until someone
// releases it. Its recipes have a registry of their own (LookupPlain,
// PlainRecipes), beside the double barrier's.
//
//	r, err := barrier.LookupPlain("checked")
//	b, err := r.New(cli, "deploy")
//	err = b.Hold(ctx)    // the deployer, before it rolls out
//	err = b.Wait(ctx)    // a worker: returns once the deployer releases
//	err = b.Release(ctx) // the deployer, when it is done
//
// etcd's Barrier.Wait returns nil when its watch closes for any reason, a
// watch resumed from a compacted revision too, with the barrier still up;
// the checked recipe reads the key after the wait and waits again (see
// CheckedBarrier). The recipe "upstream" is etcd's, run as it is.
//
// The double barrier's waits end the same way: etcd's Enter returns nil
// when its watch of <name>/ready closes, ready or not. The recipe
// "checked" reads the ready key after Enter (see Checked); the
// double-barrier recipe "upstream" (UpstreamRecipes) is etcd's, run as
// it is.
package barrier
