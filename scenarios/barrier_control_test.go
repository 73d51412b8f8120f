package scenarios_test

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/recipes/barrier"
	"github.com/etcdsim/etcdsim/scenarios"
)

// Each barrier pitfall's scenario, run with the correct recipe in place of
// the broken one, passes: the schedule and the workload let nobody through
// early by themselves, the broken recipe does.
func TestBarrierPitfallsPassWithCorrectRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every barrier pitfall's scenario against real clusters")
	}
	skipUnderRace(t)
	for _, s := range scenarios.All() {
		r, err := barrier.Lookup(s.Workload.Recipe)
		if s.Workload.Family != scenarios.FamilyBarrier || err != nil || !r.Broken {
			continue
		}
		s.Workload.Recipe = "checked"
		s.Name = strings.Replace(s.Name, "/"+r.Name+"/", "/checked-instead-of-"+r.Name+"/", 1)
		s.Description = "the correct checked under " + r.Name + "'s scenario"
		s.Expect = checker.Expectation{}
		scenarios.TestParallel(t, s)
	}
}

// Each plain-barrier pitfall's scenario, run with the correct recipe in
// place of the broken one, passes: the schedule alone makes no waiter
// sleep through a release. (The upstream reproduction has its fix twin
// among the upstream scenarios.)
func TestPlainBarrierPitfallsPassWithCorrectRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every plain-barrier pitfall's scenario against real clusters")
	}
	skipUnderRace(t)
	for _, s := range scenarios.All() {
		r, err := barrier.LookupPlain(s.Workload.Recipe)
		if s.Workload.Family != scenarios.FamilyPlainBarrier || s.Upstream != nil || err != nil || !r.Broken {
			continue
		}
		s.Workload.Recipe = "checked"
		s.Name = strings.Replace(s.Name, "/"+r.Name+"/", "/checked-instead-of-"+r.Name+"/", 1)
		s.Description = "the correct checked under " + r.Name + "'s scenario"
		s.Expect = checker.Expectation{}
		scenarios.TestParallel(t, s)
	}
}
