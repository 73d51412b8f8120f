package simrun

import (
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

func TestShrinkTarget(t *testing.T) {
	me, live := checker.CheckerMutualExclusion, checker.CheckerLiveness
	violation := func(name checker.Name, kinds ...checker.ViolationKind) checker.Result {
		r := checker.Result{Checker: name, Verdict: checker.VerdictViolation}
		for _, k := range kinds {
			r.Violations = append(r.Violations, checker.Violation{Kind: k, Message: string(k)})
		}
		return r
	}
	ok := func(name checker.Name) checker.Result {
		return checker.Result{Checker: name, Verdict: checker.VerdictOK}
	}
	tests := []struct {
		name   string
		expect checker.Expectation
		checks []checker.Result
		want   checker.Expectation
		found  bool
	}{
		{"the expected kind", checker.Expectation{Checker: me, Violation: checker.ViolationStaleWrite},
			[]checker.Result{violation(me, checker.ViolationLostUpdate, checker.ViolationStaleWrite)},
			checker.Expectation{Checker: me, Violation: checker.ViolationStaleWrite}, true},
		{"any kind expected: the first found", checker.Expectation{Checker: live},
			[]checker.Result{violation(me, checker.ViolationOverlap), violation(live, checker.ViolationStarvation)},
			checker.Expectation{Checker: live, Violation: checker.ViolationStarvation}, true},
		{"a pass expected: the first violation", checker.Expectation{},
			[]checker.Result{ok(me), violation(live, checker.ViolationStarvation)},
			checker.Expectation{Checker: live, Violation: checker.ViolationStarvation}, true},
		{"another violation than expected", checker.Expectation{Checker: me, Violation: checker.ViolationOverlap},
			[]checker.Result{violation(me, checker.ViolationLostUpdate)},
			checker.Expectation{Checker: me, Violation: checker.ViolationLostUpdate}, true},
		{"inside a combined result", checker.Expectation{},
			[]checker.Result{checker.Combine("all", ok(me), violation(live, checker.ViolationStarvation))},
			checker.Expectation{Checker: live, Violation: checker.ViolationStarvation}, true},
		{"no violation", checker.Expectation{Checker: me},
			[]checker.Result{ok(me), {Checker: live, Verdict: checker.VerdictUnknown}},
			checker.Expectation{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &scenarios.Result{Scenario: scenarios.Scenario{Expect: tt.expect}, Checks: tt.checks}
			got, found := shrinkTarget(res)
			if got != tt.want || found != tt.found {
				t.Errorf("shrinkTarget = %v, %v; want %v, %v", got, found, tt.want, tt.found)
			}
		})
	}
}

func TestTryLine(t *testing.T) {
	tests := []struct {
		name        string
		rec         tryRecord
		interrupted bool
		sched       []string
		want        string
	}{
		{"kept", tryRecord{Trials: 3, Ran: 3, Failed: 3, Kept: true, Elapsed: scenarios.Duration(41_230_000_000)}, false, nil,
			"fails 3 of 3 → kept (41.2s)"},
		{"stopped at a pass", tryRecord{Trials: 3, Ran: 2, Failed: 1, Why: "seed 2 did not: mutual-exclusion is ok", Elapsed: scenarios.Duration(22e9)}, false, nil,
			"fails 1 of 3 → seed 2 did not: mutual-exclusion is ok; 1 more not run (22s)"},
		{"interrupted", tryRecord{Trials: 3, Ran: 1, Failed: 1, Elapsed: scenarios.Duration(9e9)}, true, nil,
			"fails 1 of 3 → interrupted (9s)"},
		{"a schedule that did not run as written", tryRecord{Trials: 1, Ran: 1, Failed: 1, Kept: true, Elapsed: scenarios.Duration(9e9)}, false,
			[]string{"seed 1: nobody holds lock \"L\" now"},
			"fails 1 of 1 → kept (9s)\n\tthe fault schedule did not run as written: seed 1: nobody holds lock \"L\" now"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tryLine(tt.rec, tt.interrupted, tt.sched); got != tt.want {
				t.Errorf("tryLine =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
