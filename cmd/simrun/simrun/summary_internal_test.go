package simrun

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

// A summary keeps runs whose fault schedule did not run as written apart
// from the verdicts: they are neither met nor missed, nor in the
// detection; and a scenario that expects a pass shows how often its runs
// found a violation, so that a user's broken recipe under the Safety
// constructors reads as caught.
func TestSummaryKeepsScheduleErrorsApart(t *testing.T) {
	pass := "pass"
	broken := "violation of liveness (starvation)"
	viol := map[string]int{"liveness": 1}
	s := &results.Summary{Runs: []results.SummaryRun{
		{Name: "lock/mine/contention", Seed: 1, Expect: pass, Violations: viol},
		{Name: "lock/mine/contention", Seed: 2, Expect: pass, Violations: viol},
		{Name: "lock/mine/contention", Seed: 3, Expect: pass, ScheduleErr: "crash(client c9): no such client", Why: "the fault schedule did not run as written"},
		{Name: "lock/mine/contention", Seed: 4, Expect: pass, Met: true},
		{Name: "lock/setnx/crash-holder", Seed: 1, Expect: broken, Met: true, Violations: viol},
		{Name: "lock/setnx/crash-holder", Seed: 2, Expect: broken, ScheduleErr: "revoke-lease(client c1): no lease known"},
		{Name: "lock/setnx/crash-holder", Seed: 3, Expect: broken, Error: "cluster would not start"},
	}}
	s.Aggregate()
	type row struct {
		Scenario                          string
		Runs, Met, Errors, ScheduleErrors int
		Found, Judged                     int
		Detection                         string
	}
	var got []row
	for _, ss := range s.Scenarios {
		got = append(got, row{ss.Scenario, ss.Runs, ss.Met, ss.Errors, ss.ScheduleErrors, ss.Found, ss.Judged(), ss.Detection()})
	}
	want := []row{
		{"lock/mine/contention", 4, 1, 0, 1, 2, 3, "found 67%"},
		{"lock/setnx/crash-holder", 3, 1, 1, 1, 1, 1, "100%"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenario summaries (-want +got):\n%s", diff)
	}
	var b strings.Builder
	table(&b, s)
	out := b.String()
	for _, line := range []string{
		"schedule error: lock/mine/contention seed 3: crash(client c9): no such client",
		"schedule error: lock/setnx/crash-holder seed 2: revoke-lease(client c1): no lease known",
		"2 runs did not run their fault schedule as written",
		"missed: lock/mine/contention seed 1",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("the table has no line %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "missed: lock/mine/contention seed 3") {
		t.Errorf("a schedule error is listed as missed:\n%s", out)
	}
}
