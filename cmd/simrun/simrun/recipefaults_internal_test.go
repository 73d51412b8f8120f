package simrun

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// The table run prints names each run's recipe faults and the faults of
// its schedule that could not apply, one line each, so that nobody has to
// open result.json to learn that a run did not test what it says.
func TestTableNamesRecipeFaultsAndFaultsNotApplied(t *testing.T) {
	res := &scenarios.Result{
		Scenario:     scenarios.Scenario{Name: "lock/hold/standard-mix", Seed: 3},
		Met:          true,
		RecipeFaults: []string{"the recipe's Close did not return within 10s"},
		Faults: []checker.FaultEvent{
			{Name: "kill(leader)", Healed: true},
			{Name: "revoke-lease(holder)", NotApplicable: "the holder's recipe recorded no lease"},
		},
	}
	s := &results.Summary{Runs: []results.SummaryRun{results.NewSummaryRun(res, "", "lock-hold-standard-mix/seed-3")}}
	s.Aggregate()
	var b strings.Builder
	table(&b, s)
	out := b.String()
	for _, line := range []string{
		"recipe fault: lock/hold/standard-mix seed 3: the recipe's Close did not return within 10s\n",
		"fault not applied: lock/hold/standard-mix seed 3: revoke-lease(holder): the holder's recipe recorded no lease\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("the table has no line %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "kill(leader)") {
		t.Errorf("the table names a fault that applied:\n%s", out)
	}
}
