package reports

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
	"github.com/etcdsim/etcdsim/seed"
)

// TestScenarioOpStats: the time to first violation is the median over the
// runs with one of when each first showed one; the latency percentiles
// are over the ok operations of every run, leaving out failed and unknown
// ones, crashes and the leader observer's records.
func TestScenarioOpStats(t *testing.T) {
	ms := time.Millisecond
	op := func(id int, kind checker.Kind, call, lat time.Duration, out checker.Outcome) checker.Operation {
		return checker.Operation{ID: id, Client: "c1", Kind: kind, Call: call, Return: call + lat, Outcome: out}
	}
	run := func(s seed.Seed, violating [][]checker.Operation, ops ...checker.Operation) *results.Run {
		c := checker.Result{Checker: "mutual-exclusion", Verdict: checker.VerdictOK}
		for _, v := range violating {
			c.Verdict = checker.VerdictViolation
			c.Violations = append(c.Violations, checker.Violation{Message: "overlap", Ops: v})
		}
		sc := scenarios.Scenario{Name: "lock/x", Seed: s}
		return &results.Run{Result: &scenarios.Result{Scenario: sc, Checks: []checker.Result{c}}, History: checker.History{Ops: ops}}
	}
	leader := op(9, scenarios.KindLeader, 0, 0, checker.OutcomeOK)
	leader.Client = scenarios.LeaderClient
	runs := []*results.Run{
		run(1, [][]checker.Operation{{op(3, checker.KindAcquire, 5*time.Second, 0, "")}, {op(1, checker.KindAcquire, 2*time.Second, 0, "")}},
			op(0, checker.KindAcquire, 0, 10*ms, checker.OutcomeOK), op(1, checker.KindRelease, 0, 20*ms, checker.OutcomeOK), leader),
		run(2, [][]checker.Operation{{op(4, checker.KindAcquire, 4*time.Second, 0, "")}},
			op(0, checker.KindAcquire, 0, 30*ms, checker.OutcomeOK), op(1, checker.KindAcquire, 0, 900*ms, checker.OutcomeFailed),
			op(2, checker.KindCrash, 0, 0, checker.OutcomeOK)),
		run(3, nil, op(0, checker.KindAcquire, 0, 40*ms, checker.OutcomeOK)),
	}
	s := stats(runs, nil)[0]
	type got struct {
		FirstViolation      time.Duration
		Violated, Ops       int
		OpP50, OpP90, OpP99 time.Duration
	}
	want := got{FirstViolation: 2 * time.Second, Violated: 2, Ops: 4, OpP50: 20 * ms, OpP90: 40 * ms, OpP99: 40 * ms}
	if diff := cmp.Diff(want, got{s.FirstViolation, s.Violated, s.Ops, s.OpP50, s.OpP90, s.OpP99}); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}
