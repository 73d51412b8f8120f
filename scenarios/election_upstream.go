package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// The upstream scenarios of the election family.

// upstreamElection is the pause-waiter scenario of election recipe name
// (pauseWaiter, as the gallery's pauseWaiterScenario with a shorter
// crash), judged by ElectionSafety and the fencing its terms give,
// expecting expect.
func upstreamElection(name string, expect checker.Expectation) Scenario {
	w := pauseWaiterWorkload()
	w.Family, w.Recipe = FamilyElection, name
	return Scenario{
		Cluster:  Cluster{Members: 3},
		Workload: w,
		Faults:   Faults{Timeline: pauseWaiter(checker.KindCampaign, "E")},
		Checkers: []Check{{Name: checker.CheckerElectionSafety}, {Name: checker.CheckerFencing}},
		Expect:   expect,
		Seed:     1,
	}
}

// upstream19597: a candidate waits in upstream's Campaign behind the
// leader and is paused past its TTL (recipe unchecked: Campaign with
// nothing added); when it wakes, the key it waited on is gone and Campaign
// returns success over its own expired key while the real leader leads.
// The fix ends the wait with the lease and rechecks the key after it
// (recipe rechecked). The Mutex half is upstream19597Mutex.
func upstream19597() []Scenario {
	r := report("etcd-19597")
	twoLeaders := checker.Expectation{Checker: checker.CheckerElectionSafety, Violation: checker.ViolationTwoLeaders}
	return []Scenario{
		r.scenario(upstreamElection("unchecked", twoLeaders), "pause-waiter", ShowsReport,
			"a candidate paused past its TTL while it waits in Campaign wakes up told it leads, over a key that "+
				"expired, beside the real leader"),
		r.scenario(upstreamElection("rechecked", checker.Expectation{}), "fixed", ShowsFix,
			"the same pause with the wait ended by the lease and the key read again after it: the candidate is "+
				"told its lease expired"),
		upstream19597Mutex(),
	}
}

// upstream21128: c1 leads and c2 waits in Campaign, cut off from 7.2s to
// 8s. Meanwhile c1's process goes: its lease is revoked at 7.25s, as a
// closing session revokes it (the write c2 misses), and it crashes at
// 7.3s; etcd compacts at 7.7s. When c2 is back its watch resumes from a
// revision that is gone: Campaign fails with ErrCompacted and leaves its
// key, the oldest now, and Resign does nothing. Every campaign after waits
// behind that key: no leader until the run ends. Liveness counts c1's
// term as held until a TTL after its crash, 10.3s, and reports the 3.7s
// after it with no leader, against a bound of 2.5s. The fix deletes the
// key after the failed Campaign, and the election goes on.
//
// The roles and c2's watch are pinned down first. When c1 wins (and when
// c2 wins, if it wins first) c2 crashes for 300ms: it comes back queued
// behind c1 and behind its own old key, whose lease expires within a TTL
// and a half, and only then watches c1's key, after c1 proclaimed. So
// c2's watch has seen no event when it is cut off, and the revocation
// alone puts the revision it resumes from below the compaction. The TTL
// of 3s keeps c2's session through the 800ms cut; c1 keeps office for 8s,
// past the cut.
func upstream21128() []Scenario {
	r := report("etcd-21128")
	s := func(recipe string, expect checker.Expectation) Scenario {
		c1, c2 := faults.Client("c1"), faults.Client("c2")
		return Scenario{
			Cluster: Cluster{Members: 3},
			Workload: Workload{Family: FamilyElection, Recipe: recipe, Clients: 2, TTL: Duration(3 * time.Second),
				Hold: Duration(8 * time.Second), Patience: Duration(10 * time.Second), Duration: Duration(14 * time.Second)},
			Faults: Faults{Timeline: &faults.Timeline{
				Steps: []faults.Step{
					faults.At(7200*time.Millisecond, 800*time.Millisecond, faults.Isolate(c2)),
					faults.At(7250*time.Millisecond, 0, faults.RevokeLease(c1)),
					faults.At(7300*time.Millisecond, 200*time.Millisecond, faults.Crash(c1)),
					faults.At(7700*time.Millisecond, 0, faults.Compact()),
				},
				Triggers: []faults.Trigger{
					faults.On(faults.Match{Kind: checker.KindCampaign, Client: "c1", Key: "E"}, 300*time.Millisecond, faults.Crash(c2)),
					faults.On(faults.Match{Kind: checker.KindCampaign, Client: "c2", Key: "E"}, 300*time.Millisecond, faults.Crash(c2)),
				},
				End: 13500 * time.Millisecond, // the triggers need not all fire
			}},
			Checkers: []Check{{Name: checker.CheckerElectionSafety}, {Name: checker.CheckerLiveness, Bound: Duration(2500 * time.Millisecond)}},
			Expect:   expect,
			Seed:     1,
		}
	}
	leaderless := checker.Expectation{Checker: checker.CheckerLiveness, Violation: checker.ViolationLeaderless}
	return []Scenario{
		r.scenario(s("campaign-retry", leaderless), "compacted-campaign", ShowsReport,
			"a waiting candidate is cut off while the leader's lease is revoked and etcd compacts: its Campaign "+
				"fails on the compacted watch and leaves its key, which leads with no one behind it"),
		r.scenario(s("campaign-retry-resigned", checker.Expectation{}), "fixed", ShowsFix,
			"the same schedule with the failed Campaign's key deleted: the election goes on"),
	}
}
