package election

import (
	"github.com/etcdsim/etcdsim/checker"
)

var leaderless = checker.Expectation{Checker: checker.CheckerLiveness, Violation: checker.ViolationLeaderless}

// upstreamRecipes are the recipes that run etcd's own client library
// unchanged in the calling pattern of a report against etcd, and beside
// each the same pattern with the fix. Lookup finds them, so a result file
// replays by name; Recipes, the gallery, and every scenario and test that
// walks its correct recipes, leave them out. The upstream scenarios
// (package scenarios, upstream/…) run them.
var upstreamRecipes = []Recipe{
	Recipe{Name: "campaign-retry", Broken: true, New: newCampaignRetry, Expect: leaderless,
		Upstream: "https://github.com/etcd-io/etcd/issues/21128",
		Summary: "concurrency.Election, a session per round: a Campaign that fails (a compacted watch) leaves its key, " +
			"Resign cannot remove it, and the key leads with no one behind it"},
	Recipe{Name: "campaign-retry-resigned", New: newCampaignRetryResigned,
		Summary: "campaign-retry with the fix proposed for etcd #21128: a failed Campaign's key is deleted"},
	Recipe{Name: "resign-retry", Broken: true, New: newResignRetry,
		Expect:   checker.Expectation{Checker: checker.CheckerElectionSafety, Violation: checker.ViolationTermRegression},
		Upstream: "https://github.com/etcd-io/etcd/issues/22123",
		Summary: "concurrency.Election, one session per process: a Resign that failed is retried and returns nil, " +
			"the key stays, and the process leads again with the term it resigned"},
	Recipe{Name: "resign-retry-fixed", New: newResignRetryFixed,
		Summary: "resign-retry with the fix proposed for etcd #22123: a failed Resign keeps its key, and the retry deletes it"},
	Recipe{Name: "session-election", New: newCampaignRetryResigned,
		Summary: "concurrency.Election on a concurrency.Session per round, as etcd's documentation shows (campaign-retry-resigned's " +
			"code): the session alone renews the lease on clientv3's KeepAlive stream, which stays on one member; the leader " +
			"stops when the session's Done closes"},
}

// UpstreamRecipes returns the recipes that reproduce reports against etcd
// and their fixed twins. Lookup finds them; Recipes does not list them.
func UpstreamRecipes() []Recipe { return registry.Upstream() }
