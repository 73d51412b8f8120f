package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// upstream22123: two candidates, each a process with one session for its
// life, whose Resign is tried again until it returns nil. When the first
// leader has proclaimed, it is cut off from every member for 1.5s: it
// works 200ms, then resigns, and its first attempt, given a third of the
// 3s TTL, times out without reaching etcd. Upstream's Election has
// forgotten the term by then, so the retry returns nil at once: the
// process believes it resigned, its key stays, and the other candidate
// keeps waiting behind it. The process thinks 600ms, past the cut, and
// campaigns again on the same session: Campaign finds its old key, the
// oldest, and wins at once with the term it had resigned. ElectionSafety
// names it: the same term twice, the key outliving a resign that returned
// ok. The TTL keeps the session through the cut, as the report's process
// keeps its. The fix keeps the key and revision through a failed attempt:
// the retry after the cut deletes the key, and the other candidate wins.
func upstream22123() []Scenario {
	r := report("etcd-22123")
	s := func(recipe string, expect checker.Expectation) Scenario {
		return Scenario{
			Cluster: Cluster{Members: 3},
			Workload: Workload{Family: FamilyElection, Recipe: recipe, Clients: 2, TTL: Duration(3 * time.Second),
				Hold: Duration(200 * time.Millisecond), Think: Duration(600 * time.Millisecond), Duration: Duration(6 * time.Second)},
			Faults: Faults{Timeline: &faults.Timeline{Triggers: []faults.Trigger{
				faults.On(faults.Match{Kind: kindProclaim, Key: "E"}, 1500*time.Millisecond, faults.Isolate(faults.ElectionLeader("E"))),
			}}},
			Checkers: []Check{{Name: checker.CheckerElectionSafety}, {Name: checker.CheckerFencing}},
			Expect:   expect,
			Seed:     1,
		}
	}
	again := checker.Expectation{Checker: checker.CheckerElectionSafety, Violation: checker.ViolationTermRegression}
	return []Scenario{
		r.scenario(s("resign-retry", again), "resign-retry", ShowsReport,
			"the leader is cut off as it resigns; its retried Resign returns nil while its key stays, and its next "+
				"Campaign on the same session wins the term it had resigned"),
		r.scenario(s("resign-retry-fixed", checker.Expectation{}), "fixed", ShowsFix,
			"the same cut with the key and revision kept through a failed Resign: the retry deletes the key and "+
				"the other candidate wins"),
	}
}
