// Package lock holds distributed lock recipes on etcd, the right ones and
// deliberately wrong ones, behind one small interface so that every
// scenario can run each of them, and a user's own, under the same faults.
//
// A Locker acquires a named lock for one client; each successful Lock is a
// holder, a Held, with a fencing token (the revision that orders holders),
// a Done channel closed when ownership may have been lost, and Unlock. A
// Held may also implement Leaser (the lease its key is on, for faults aimed
// at it), Checker (ask etcd whether it still owns the lock) and Writer
// (write to etcd only while it does); a Locker may implement WakeCounter
// (watch events its waiters received). Each is optional: a scenario does
// without what a holder does not offer, and a fault that needs it is
// recorded as not applicable to the recipe. A user's own lock joins every
// scenario by implementing Locker and filling in a Recipe; package
// lease is the lease guard every recipe here is built on.
//
// The correct recipes:
//
//   - "mutex": client/v3/concurrency.Mutex, one session per holder.
//   - "v3lock": etcd's server-side lock API; the caller keeps the lease alive.
//   - "fenced": the documented recipe written out, whose holders write to
//     etcd through a guard (PutIfHeld) that commits only while they own it.
//
// The deliberately broken recipes are not exported: a broken recipe is
// reached by name, through the registry, so that nobody builds one by
// accident. They are "released-marker", "keepalive-misconfigured",
// "unfenced", "shared-session", "setnx", "delete-name",
// "serializable-check" and "missed-wakeup", each in a file broken_*.go
// whose constructor's doc comment begins "BROKEN (deliberately):" and
// says what breaks; they are registered with Broken set and the violation
// they must produce, so that scenarios expect it. "herd" is correct but
// wakes every waiter on each change. Recipes lists the gallery,
// UpstreamRecipes the reproductions of reports against etcd, and Lookup
// finds any of them by name. The gallery's documentation numbers them.
//
// Resource and FencedResource stand for what a lock protects: the first
// counts critical sections that overlap, the second refuses a write whose
// fencing token is lower than one it has accepted.
//
// In a test, against a cluster from package cluster:
//
//	cli, _ := c.Client("c1")
//	l, err := lock.NewMutex(cli, "jobs", lock.Options{TTL: time.Second})
//	h, err := l.Lock(ctx)
//	exit := res.Enter("c1")
//	err = store.Write(h.Token(), "c1", "v1") // refused if a later holder wrote
//	exit()
//	err = h.Unlock(ctx) // ErrNotHeld if the lease expired first
//
// Or by name, as scenarios do:
//
//	r, err := lock.Lookup("setnx")
//	l, err := r.New(cli, "jobs", lock.Options{})
package lock
