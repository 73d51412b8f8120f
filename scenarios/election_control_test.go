package scenarios_test

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/scenarios"
)

// Each election pitfall's scenario, run with a correct recipe in place of
// the broken one, passes: the schedule and the workload do not provoke the
// violation by themselves, the broken recipe does. A pitfall whose
// schedule ElectionSafety already runs for the correct recipes
// (pause-leader, pause-waiter) is covered by that registered scenario and
// not run again here.
func TestElectionPitfallsPassWithCorrectRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs election pitfalls' scenarios against real clusters")
	}
	skipUnderRace(t)
	registered := map[string]bool{}
	for _, s := range scenarios.All() {
		registered[s.Name] = true
	}
	for _, s := range scenarios.All() {
		r, err := election.Lookup(s.Workload.Recipe)
		if s.Workload.Family != scenarios.FamilyElection || err != nil || !r.Broken {
			continue
		}
		twin := strings.Replace(s.Name, "/"+r.Name+"/", "/rechecked/", 1)
		if registered[twin] {
			continue
		}
		s.Workload.Recipe = "rechecked"
		s.Name = strings.Replace(s.Name, "/"+r.Name+"/", "/rechecked-instead-of-"+r.Name+"/", 1)
		s.Description = "the correct rechecked recipe under " + r.Name + "'s scenario"
		s.Expect = checker.Expectation{}
		scenarios.TestParallel(t, s)
	}
}
