package scenarios

import (
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// slowRenewal delays every link of backend c1 by 400 ms each way from 2 s
// to 4 s: a renewal takes 800 ms, longer than a registrar that gives one a
// quarter of its 2 s TTL waits, while clientv3's KeepAlive, which waits
// for no answer, keeps the lease alive throughout.
func slowRenewal() *faults.Timeline {
	return &faults.Timeline{Steps: []faults.Step{
		faults.At(2*time.Second, 2*time.Second, faults.Delay(faults.Client("c1"), 400*time.Millisecond, 0)),
	}}
}

// fieldDiscoveryPitfalls are the discovery pitfalls of faults seen in the
// field: a flapping partition (discovery_flap.go), and a slow spell that
// the left-behind checker judges.
//
// Beside each, its twin: the correct keepalive registrar under the same
// schedule, expecting a pass, so that the failure is the recipe's.
func fieldDiscoveryPitfalls() []Scenario {
	var out []Scenario
	for _, s := range append(flapPitfalls(), leftBehindPitfalls()...) {
		twin := s
		twin.Name = strings.Replace(s.Name, "/"+s.Workload.Recipe+"/", "/keepalive/", 1)
		twin.Description = "keepalive under " + s.Workload.Recipe + "'s schedule: " + s.Description[:strings.Index(s.Description, ":")] +
			"; the registrar keeps one key and registers again as often as it loses its lease"
		twin.Workload.Recipe = "keepalive"
		twin.Expect = checker.Expectation{}
		out = append(out, s, twin)
	}
	return out
}

// leftBehindPitfalls are the discovery pitfalls left-behind judges: the
// rekey registrar under a slow spell of c1's links, judged by left-behind
// beside discovery-convergence; a lister records the registry's keys.
func leftBehindPitfalls() []Scenario {
	return []Scenario{{
		Name: "discovery/rekey/slow-renewal",
		Description: "backend c1's renewals are slow for 2 s: the registrar takes a slow answer for a lost lease, registers again " +
			"under a new key, and keeps renewing the old one, which stays in the registry for good",
		Cluster: Cluster{Members: 3},
		Workload: Workload{Family: FamilyDiscovery, Recipe: "rekey", Resolver: "relisting", Clients: 2, Observers: 1,
			TTL: Duration(2 * time.Second), Duration: Duration(12 * time.Second)},
		Faults:   Faults{Timeline: slowRenewal()},
		Checkers: []Check{{Name: checker.CheckerLeftBehind}, {Name: checker.CheckerDiscoveryConvergence}},
		Expect:   checker.Expectation{Checker: checker.CheckerLeftBehind, Violation: checker.ViolationLeftBehind},
		Seed:     1,
	}}
}
