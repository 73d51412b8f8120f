package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// orderingScenarios read serializably — a member answers from its own
// copy — while a follower is cut off from the others and falls behind.
// Every client is linked to every member, and the balancer sends each
// request to the next: a client that read at the leader's revision may
// next be answered by the lagging follower, at an older one. Through
// etcd's own KV the client sees the revision go backwards; through
// client/v3/ordering's KV it never does. c1 only reads (Readers), so that
// one client goes round the members every think throughout the
// partition; a client that also writes is held for the patience by each
// write the balancer sends to the cut-off follower, and with three such
// clients the real clock found the backwards read in 17 runs of 20, the
// virtual one in 19. With the reader, 20 of 20 on both.
func orderingScenarios() []Scenario {
	base := Scenario{
		Cluster: Cluster{Members: 3},
		Workload: Workload{Family: FamilyRegister, Serializable: true, Clients: 3, Readers: 1, Observers: 1,
			Duration: Duration(4 * time.Second), Patience: Duration(500 * time.Millisecond)},
		Faults: Faults{Timeline: &faults.Timeline{Steps: []faults.Step{
			faults.At(time.Second, 2*time.Second, faults.Partition(faults.Follower)),
		}}},
		Checkers: []Check{{Name: checker.CheckerMonotonicReads}},
		Seed:     1,
	}

	broken := base
	broken.Name = "register/serializable/partition-follower"
	broken.Description = "serializable reads through etcd's own KV, the balancer switching members, while a follower is cut off and falls behind: a client sees the revision go backwards"
	broken.Expect = checker.Expectation{Checker: checker.CheckerMonotonicReads, Violation: checker.ViolationRevisionBackwards}

	ordered := base
	ordered.Name = "register/ordering/partition-follower"
	ordered.Description = "the same serializable reads through client/v3/ordering's KV, which asks again when a member answers at an older revision than the client has seen: the revision never goes backwards"
	ordered.Workload.Recipe = "ordering"

	return []Scenario{ordered, broken}
}
