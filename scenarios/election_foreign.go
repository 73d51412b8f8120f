package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// deleteLeaderKey is the schedule of a foreign delete of the leader's key:
// terms of 3 s, and 1.5 s into the run — in the first leader's term — a
// client outside the recipe deletes the keys on the leader's session lease,
// its leader key, as an operator's `etcdctl del` or a cleanup job would.
// The lease lives on.
func deleteLeaderKey() *faults.Timeline {
	return &faults.Timeline{Steps: []faults.Step{faults.At(1500*time.Millisecond, 0, faults.Delete(faults.ElectionLeader("E")))}}
}

// electionForeignScenarios are the field classes of foreign writers on
// etcd's concurrency.Election: a foreign delete of the leader's key under
// the rechecked recipe, which finds two leaders (the class of tidb #54689,
// two owners after the owner key was deleted), and the same under
// keywatched, whose leader watches its own key, which passes.
func electionForeignScenarios() []Scenario {
	s := Scenario{
		Name: "election/rechecked/delete-leader-key",
		Description: "the leader's key is deleted by a client outside the recipe while its lease lives: the leader, whose " +
			"concurrency.Election watches nothing of its own key, leads on while the next candidate, which saw the key go, leads too",
		Cluster:  Cluster{Members: 3},
		Workload: Workload{Family: FamilyElection, Recipe: "rechecked", Clients: 3, Hold: Duration(3 * time.Second), Duration: Duration(8 * time.Second)},
		Faults:   Faults{Timeline: deleteLeaderKey()},
		Checkers: []Check{{Name: checker.CheckerElectionSafety}},
		Expect:   checker.Expectation{Checker: checker.CheckerElectionSafety, Violation: checker.ViolationTwoLeaders},
		Seed:     1,
	}
	fixed := s
	fixed.Name = "election/keywatched/delete-leader-key"
	fixed.Description = "the same foreign delete with the leader watching its own key: its term ends when the key goes, " +
		"before the next candidate's recheck lets it lead"
	fixed.Workload.Recipe = "keywatched"
	fixed.Expect = checker.Expectation{}
	return []Scenario{s, fixed}
}
