// Package barrier holds double-barrier recipes on etcd, built on the
// unmodified client/v3/experimental/recipes.DoubleBarrier, behind one
// small interface so that a user's own barrier can be judged the same way.
//
// A double barrier lets a fixed number of processes, its count, start a
// phase of work together (Enter returns once count of them have entered)
// and end it together (Leave returns once all of them have left). etcd's
// recipe keeps one key per process on the process's session lease under
// <name>/waiters, and a <name>/ready key that the last to enter puts.
//
//	r, err := barrier.Lookup("checked")
//	b, err := r.New(cli, "phase", 3, lock.Options{TTL: 2 * time.Second})
//	err = b.Enter(ctx) // returns once 3 have entered
//	err = b.Leave(ctx) // returns once all 3 have left
package barrier
