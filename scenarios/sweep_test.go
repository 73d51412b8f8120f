package scenarios_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/seed"
)

// Found picks the seeds whose named checker found a violation.
func TestFound(t *testing.T) {
	run := func(sd seed.Seed, checks ...checker.Result) *scenarios.Result {
		return &scenarios.Result{Scenario: scenarios.Scenario{Seed: sd}, Checks: checks}
	}
	me := checker.Result{Checker: checker.CheckerMutualExclusion, Verdict: checker.VerdictViolation}
	ok := checker.Result{Checker: checker.CheckerMutualExclusion, Verdict: checker.VerdictOK}
	other := checker.Result{Checker: checker.CheckerElectionSafety, Verdict: checker.VerdictViolation}
	results := []*scenarios.Result{run(1, me), run(2, ok), run(3, ok, other)}
	if got := scenarios.Found(results, checker.CheckerMutualExclusion); !slices.Equal(got, []seed.Seed{1}) {
		t.Errorf("Found(mutual-exclusion) = %v, want [1]", got)
	}
	if got := scenarios.Found(results, ""); !slices.Equal(got, []seed.Seed{1, 3}) {
		t.Errorf("Found(any) = %v, want [1 3]", got)
	}
}

// Sweep runs a scenario on each seed and hands back every result: the
// call-context-keepalive pitfall under long-hold is found.
func TestSweep(t *testing.T) {
	r, err := lock.Lookup("call-context-keepalive")
	if err != nil {
		t.Fatal(err)
	}
	var list []scenarios.Scenario
	for _, s := range scenarios.LockSafety(r) {
		if strings.HasSuffix(s.Name, "/long-hold") {
			list = append(list, s)
		}
	}
	if len(list) != 1 {
		t.Fatalf("want one long-hold scenario, got %d", len(list))
	}
	results := scenarios.Sweep(t, 2, true, list...)
	rs := results[list[0].Name]
	if len(rs) != 2 || rs[0].Scenario.Seed != 1 || rs[1].Scenario.Seed != 2 {
		t.Fatalf("Sweep gave %d results for %s, want seeds 1 and 2 in order", len(rs), list[0].Name)
	}
	if found := scenarios.Found(rs, checker.CheckerMutualExclusion); len(found) == 0 {
		t.Errorf("call-context-keepalive under long-hold: no mutual-exclusion violation on seeds 1–2")
	}
}
