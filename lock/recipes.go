package lock

import (
	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/recipe"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// NewLocker makes the Locker of one client for the lock called name: the
// constructor every recipe provides.
type NewLocker func(cli *clientv3.Client, name string, opts Options) (Locker, error)

// Recipe is a lock implementation scenarios can run by name: its name, a
// one-line summary, whether it is deliberately broken and, if so, the
// violation it must produce and the upstream report it reproduces. It is
// the registry type every recipe family shares. A user's own lock becomes
// one by filling in a Recipe; it need not be registered here.
// Its fields, documented on the internal type it names: Name (lower-case
// letters, digits and '-'), Summary (one line), New (the constructor);
// Broken, Expect (the checker and violation it must produce) and Upstream
// (the report's URL) for a deliberately broken one; Family may stay empty.
// A user's own:
//
//	lock.Recipe{Name: "my-lock", Summary: "what it does", New: newMyLock}
type Recipe = recipe.Recipe[NewLocker]

// expect is the violation a broken lock recipe must produce.
func expect(c checker.Name, v checker.ViolationKind) checker.Expectation {
	return checker.Expectation{Checker: c, Violation: v}
}

// registry lists the correct recipes first, then the deliberately broken
// ones in the order the gallery shows them.
var registry = recipe.NewRegistry(recipe.Lock,
	Recipe{Name: "mutex", New: func(cli *clientv3.Client, name string, opts Options) (Locker, error) {
		return NewMutex(cli, name, opts)
	}, Summary: "client/v3/concurrency.Mutex, one session per holder; its lease guard closes Done before the server can expire it"},
	Recipe{Name: "v3lock", New: func(cli *clientv3.Client, name string, opts Options) (Locker, error) {
		return NewServerLock(cli, name, opts)
	}, Summary: "etcd's server-side lock API (v3lock); the caller keeps the lease alive"},
	Recipe{Name: "fenced", New: func(cli *clientv3.Client, name string, opts Options) (Locker, error) {
		return NewFenced(cli, name, opts)
	}, Summary: "the documented recipe written out: waiters ordered by create revision, writes through a guard that commits only while the key is held"},
	Recipe{Name: "herd", New: newHerd,
		Summary: "correct, but every waiter watches the whole prefix: each change wakes every waiter (the herd effect)"},
	Recipe{Name: "released-marker", Broken: true, New: newReleasedMarker,
		Expect: expect(checker.CheckerMutualExclusion, checker.ViolationOverlap),
		Summary: "release marks the key released instead of deleting it; a client that locks again keeps its old, " +
			"lower create revision and jumps ahead of the holder: two holders (ordering by the wrong revision)"},
	Recipe{Name: "keepalive-misconfigured", Broken: true, New: newMisconfiguredKeepalive,
		Expect: expect(checker.CheckerMutualExclusion, checker.ViolationOverlap),
		Summary: "hand-rolled keepalive, TTL 8 s, heartbeat 2 s, 2 retries: the holder gives up 12 s after its last " +
			"renewal and keeps working after its lease expired"},
	Recipe{Name: "unfenced", Broken: true, New: newUnfenced,
		Expect:   expect(checker.CheckerMutualExclusion, checker.ViolationStaleWrite),
		Upstream: "https://github.com/etcd-io/etcd/issues/10811",
		Summary: "a correct mutex guarding an external resource without a fencing token: a holder paused past its TTL " +
			"writes after its successor"},
	Recipe{Name: "shared-session", Broken: true, New: newSharedSession,
		Expect:   expect(checker.CheckerMutualExclusion, checker.ViolationOverlap),
		Upstream: "https://github.com/etcd-io/etcd/issues/11360",
		Summary:  "goroutines sharing one session share the mutex key, so both hold the lock"},
	Recipe{Name: "setnx", Broken: true, New: newSetNX,
		Expect:   expect(checker.CheckerLiveness, checker.ViolationStarvation),
		Upstream: "https://github.com/hashicorp/vault/issues/2526",
		Summary:  "put-if-absent without a lease: a crashed holder's lock is never freed, a liveness failure"},
	Recipe{Name: "delete-name", Broken: true, New: newDeleteName,
		Expect: expect(checker.CheckerMutualExclusion, checker.ViolationOverlap),
		Summary: "release and clean-up delete the lock's name rather than the client's own key: a waiter that gives up " +
			"frees the holder's lock"},
	Recipe{Name: "serializable-check", Broken: true, New: newSerializableCheck,
		Expect:   expect(checker.CheckerMutualExclusion, checker.ViolationOverlap),
		Upstream: "https://github.com/etcd-io/etcd/issues/6829",
		Summary:  "ownership checked with a serializable read: a member cut off from the leader answers a stale yes"},
	Recipe{Name: "orphaned-waiter", Broken: true, New: newOrphanedWaiter,
		Expect:   expect(checker.CheckerLiveness, checker.ViolationStarvation),
		Upstream: "https://github.com/etcd-io/etcd/issues/10111",
		Summary: "each Lock takes a session and only Unlock ends it: a Lock that gives up leaves its key, kept alive, " +
			"in the queue, and nobody behind it gets the lock again"},
	Recipe{Name: "call-context-keepalive", Broken: true, New: newCallContextKeepalive,
		Expect: expect(checker.CheckerMutualExclusion, checker.ViolationOverlap),
		Summary: "the lease's keepalive runs under the context Lock was called with, which ends when Lock returns: " +
			"a hold longer than the TTL outlives the lease, and the holder is never told"},
	Recipe{Name: "missed-wakeup", Broken: true, New: newMissedWakeup,
		Expect: expect(checker.CheckerLiveness, checker.ViolationStarvation),
		Summary: "a waiter reads its predecessor, then watches it from \"now\": a release in between is never seen, " +
			"and the waiter waits on a free lock until it gives up"},
).WithUpstream(upstreamRecipes...)

// Recipes returns every registered recipe: the correct ones first, then
// the deliberately broken ones in the order the gallery shows them.
func Recipes() []Recipe { return registry.All() }

// Lookup returns the recipe called name, of the gallery or of
// UpstreamRecipes, or an error wrapping ErrUnknownRecipe that lists the
// names there are, the closest first.
func Lookup(name string) (Recipe, error) {
	r, err := registry.Lookup(name)
	if err != nil {
		return Recipe{}, recipe.Unknown("lock: ", ErrUnknownRecipe, err)
	}
	return r, nil
}
