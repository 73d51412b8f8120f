package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// leasingScenarios are the register family's scenarios through the
// leasing KV.
func leasingScenarios() []Scenario {
	mix := Scenario{
		Name:        "register/leasing/standard-mix",
		Description: "reads, writes, compare-and-swaps and deletes through a leasing KV per client, and a watcher, under the standard mix",
		Cluster:     Cluster{Members: 3},
		Workload:    Workload{Family: FamilyRegister, Recipe: RegisterLeasing, Clients: 3, Observers: 1, Duration: Duration(8 * time.Second)},
		Faults:      Faults{Timeline: standardMix()},
		Seed:        1,
	}
	return []Scenario{mix}
}

// cutOffRepeatedly cuts client off from every member n times, for cut
// each time, every period from the first second on.
func cutOffRepeatedly(client string, n int, cut, period time.Duration) *faults.Timeline {
	var steps []faults.Step
	for i := range n {
		steps = append(steps, faults.At(time.Second+time.Duration(i)*period, cut, faults.Isolate(faults.Client(client))))
	}
	return &faults.Timeline{Steps: steps}
}

// upstream19091 runs the register workload through a leasing KV per client
// while c1 is cut off from every member again and again, each time for
// longer than its session's TTL.
func upstream19091() []Scenario {
	r := report("etcd-19091")
	s := Scenario{
		Cluster: Cluster{Members: 3},
		Workload: Workload{Family: FamilyRegister, Recipe: RegisterLeasing, Clients: 3, Observers: 1,
			Duration: Duration(20 * time.Second), Patience: Duration(200 * time.Millisecond)},
		Faults:   Faults{Timeline: cutOffRepeatedly("c1", 6, 2500*time.Millisecond, 3*time.Second)},
		Checkers: []Check{{Name: checker.CheckerRegisterLinearizable}},
		Expect:   checker.Expectation{Checker: checker.CheckerRegisterLinearizable, Violation: checker.ViolationNotLinearizable},
	}
	return []Scenario{
		r.scenario(s, "cut-off-reader", ShowsReport,
			"a client cut off past its session's TTL keeps serving its cached values while another client's writes go through: stale reads"),
	}
}
