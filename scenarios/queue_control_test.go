package scenarios_test

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/recipes/queue"
	"github.com/etcdsim/etcdsim/scenarios"
)

// Each queue pitfall's scenario, run with a correct recipe in place of the
// broken one — priority-claimed for a priority queue, claimed for a FIFO
// one — passes: the schedule and the workload do not lose, duplicate or
// reorder items by themselves, the broken recipe does.
func TestQueuePitfallsPassWithCorrectRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every queue pitfall's scenario against real clusters")
	}
	skipUnderRace(t)
	for _, s := range scenarios.All() {
		r, err := queue.Lookup(s.Workload.Recipe)
		if s.Workload.Family != scenarios.FamilyQueue || err != nil || !r.Broken {
			continue
		}
		correct := "claimed"
		if s.Workload.Priorities > 0 {
			correct = "priority-claimed"
		}
		s.Workload.Recipe = correct
		s.Name = strings.Replace(s.Name, "/"+r.Name+"/", "/"+correct+"-instead-of-"+r.Name+"/", 1)
		s.Description = "the correct " + correct + " under " + r.Name + "'s scenario"
		s.Expect = checker.Expectation{}
		scenarios.TestParallel(t, s)
	}
}
