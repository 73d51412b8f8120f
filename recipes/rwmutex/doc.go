// Package rwmutex holds read-write lock recipes on etcd, built on the
// unmodified client/v3/experimental/recipes.RWMutex, behind one small
// interface so that every scenario can run each of them, and a user's own,
// under the same faults.
//
// A Locker takes one named read-write lock for one process: RLock shares
// it with other readers, Lock holds it alone. Each hold is a lock.Held,
// with a Done channel closed when the process's session may be lost and
// an Unlock. A Locker may implement Sessioner (its session's lease, for
// faults aimed at a waiting process) and RequestCounter (the requests its
// waits cost).
//
// The recipes:
//
//   - "checked": RWMutex on a session per process, each wait followed by a
//     linearizable read that proves the caller's key outlived it.
//   - "reader-ignores-done" (broken): readers that never watch Done.
//   - "unchecked" (upstream, broken): RWMutex as etcd #16221 uses it,
//     trusting Lock's nil.
//
// Recipes lists the gallery, UpstreamRecipes the reproductions; Lookup
// finds both.
//
//	l, err := rwmutex.NewChecked(cli, "config", lock.Options{TTL: 2 * time.Second})
//	h, err := l.RLock(ctx)
//	select { case <-h.Done(): /* stop reading */ default: }
//	err = h.Unlock(ctx)
package rwmutex
