package scenarios_test

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// Each lock pitfall's scenario, run with a correct recipe in place of the
// broken one, passes: the schedule and the workload do not provoke the
// violation by themselves, the broken recipe does. A scenario that names
// its Control (TestControlsAreRegistered) is left to it.
func TestLockPitfallsPassWithCorrectRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every lock pitfall's scenario against real clusters")
	}
	skipUnderRace(t)
	for _, s := range scenarios.All() {
		r, err := lock.Lookup(s.Workload.Recipe)
		if s.Workload.Family != scenarios.FamilyLock || err != nil || !r.Broken {
			continue
		}
		if s.Control != "" {
			continue // its registered control runs with the other scenarios
		}
		// The correct recipe: etcd's Mutex, or where the scenario asks each
		// holder for a keep-alive answer, the Mutex that asks etcd for one
		// (KeepAliveOnce), since the plain one has none to give.
		correct := "mutex"
		if s.Workload.OwnerCheck == scenarios.OwnerCheckKeepAlive {
			correct = "keepalive-once"
		}
		s.Workload.Recipe = correct
		s.Name = strings.Replace(s.Name, "/"+r.Name+"/", "/"+correct+"-instead-of-"+r.Name+"/", 1)
		s.Description = "the correct " + correct + " under " + r.Name + "'s scenario"
		s.Expect = checker.Expectation{}
		scenarios.TestParallel(t, s)
	}
}
