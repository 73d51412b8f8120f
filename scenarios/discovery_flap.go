package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// flapBackend cuts backend c1 off from every member for 2.5 s, then lets
// it back for 2.5 s, twice, from 1 s on: each dip outlasts its lease's
// 2 s TTL, so the lease is lost twice, and the registrar must register
// again after each.
func flapBackend() *faults.Timeline {
	return &faults.Timeline{Steps: []faults.Step{
		faults.At(time.Second, 10*time.Second,
			faults.Flap(faults.Isolate(faults.Client("c1")), 2500*time.Millisecond, 2500*time.Millisecond, 2)),
	}}
}

// flapPitfalls are the discovery pitfalls of a flapping network: the
// oneretry registrar, which registers again after the first dip and gives
// up at the second, judged by discovery-convergence.
func flapPitfalls() []Scenario {
	return []Scenario{{
		Name: "discovery/oneretry/flapping-partition",
		Description: "backend c1 is cut off past its TTL twice, 2.5 s off and 2.5 s on: the registrar registers again after " +
			"the first dip and gives up at the second, and c1, alive and serving, is gone from discovery for good",
		Cluster: Cluster{Members: 3},
		Workload: Workload{Family: FamilyDiscovery, Recipe: "oneretry", Resolver: "relisting", Clients: 3, Observers: 1,
			TTL: Duration(2 * time.Second), Duration: Duration(18 * time.Second)},
		Faults:   Faults{Timeline: flapBackend()},
		Checkers: []Check{{Name: checker.CheckerDiscoveryConvergence}},
		Expect:   checker.Expectation{Checker: checker.CheckerDiscoveryConvergence, Violation: checker.ViolationNotConverged},
		Seed:     1,
	}}
}
