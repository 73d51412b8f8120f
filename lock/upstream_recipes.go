package lock

import (
	"github.com/etcdsim/etcdsim/checker"
)

// upstreamRecipes are the recipes that run etcd's own client library
// unchanged in the calling pattern of a report against etcd, and beside
// each the same pattern with the fix. They are registered — Lookup finds
// them, so a result file replays by name — but kept apart from the
// gallery: Recipes, and with it every scenario and test that walks the
// gallery's correct recipes, leaves them out. The upstream scenarios
// (package scenarios, upstream/…) run them under the schedule of their
// report.
var upstreamRecipes = []Recipe{
	Recipe{Name: "unlock-retry", Broken: true, New: newUnlockRetry,
		Expect:   expect(checker.CheckerMutualExclusion, checker.ViolationOverlap),
		Upstream: "https://github.com/etcd-io/etcd/issues/22082",
		Summary: "concurrency.Mutex, one session per process: an Unlock whose answer was lost is retried after " +
			"the process locks again, and deletes the newer lock: two holders"},
	Recipe{Name: "unlock-retry-fenced", New: newUnlockRetryFenced,
		Summary: "unlock-retry with the fix proposed for etcd #22082: the release deletes the key only if it " +
			"still has the create revision the Mutex acquired"},
	Recipe{Name: "keepalive-channel", Broken: true, New: newKeepAliveChannel,
		Expect:   expect(checker.CheckerRevokedLease, checker.ViolationActedAfterRevoke),
		Upstream: "https://github.com/etcd-io/etcd/issues/21638",
		Summary: "concurrency.Mutex whose holder takes the next answer off clientv3's KeepAlive channel as proof that it " +
			"holds: an answer buffered before its lease was revoked, taken after, and the holder writes on a lease that is gone"},
	Recipe{Name: "keepalive-once", New: newKeepAliveOnce,
		Summary: "keepalive-channel with the fix: the holder asks with KeepAliveOnce, sent when it checks, so that after a " +
			"revoke the answer says the lease is gone"},
	Recipe{Name: "requireleader-keepalive", Broken: true, New: newRequireLeaderKeepAlive,
		Expect:   expect(checker.CheckerLiveness, checker.ViolationStarvation),
		Upstream: "https://github.com/etcd-io/etcd/pull/21126",
		Summary: "a key on a lease kept alive by clientv3's KeepAlive under WithRequireLeader(context.Background()); the holder " +
			"takes the channel's close for the lease's end, but clientv3 goes on renewing the lease: the key stays and nobody can lock"},
	Recipe{Name: "requireleader-cancel", New: newRequireLeaderCancel,
		Summary: "requireleader-keepalive with the guard: the keep-alive's context is cancelled when its channel closes, so that " +
			"clientv3 forgets the lease and it expires a TTL later"},
	Recipe{Name: "session-mutex", New: newSessionMutex,
		Summary: "concurrency.Mutex on a concurrency.Session per hold, as etcd's documentation shows: the session alone renews " +
			"the lease on clientv3's KeepAlive stream, which stays on one member; the holder stops when the session's Done closes"},
}

// UpstreamRecipes returns the recipes that reproduce reports against etcd
// and their fixed twins, in the order the upstream scenarios show them.
// Lookup finds them; Recipes, the gallery, does not list them.
func UpstreamRecipes() []Recipe { return registry.Upstream() }
