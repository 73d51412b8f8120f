package reports_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// writeLongRun writes result.json and history.json of a synthetic lock
// run into dir: clients contend for one lock for d, with two fault
// windows a minute, some unknown outcomes and a crash; one overlap is
// reported as a violation.
func writeLongRun(tb testing.TB, dir string, d time.Duration, clients int) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	const run = "synthetic#1"
	h := checker.History{Meta: checker.Meta{RunID: run, Seed: 1, Scenario: "lock/synthetic/long"}}
	add := func(client string, kind checker.Kind, call, ret time.Duration, out checker.Outcome) *checker.Operation {
		op := checker.Operation{ID: len(h.Ops), Run: run, Client: client, Kind: kind, Key: "L", Call: call, Return: ret, Outcome: out}
		if out == checker.OutcomeUnknown {
			op.Return, op.GaveUp = checker.Infinity, ret
		}
		h.Ops = append(h.Ops, op)
		return &h.Ops[len(h.Ops)-1]
	}
	// The lock passes from client to client; the others wait.
	free := time.Duration(0)
	for t := time.Duration(0); t < d; {
		c := fmt.Sprintf("c%d", 1+rng.IntN(clients))
		call := t
		got := max(free, call) + time.Duration(rng.IntN(20))*time.Millisecond
		acq := add(c, checker.KindAcquire, call, got, checker.OutcomeOK)
		acq.Output.Token = int64(len(h.Ops))
		w := got + 100*time.Millisecond
		add(c, checker.KindCounterIncr, got+time.Millisecond, w-time.Millisecond, checker.OutcomeOK)
		add(c, checker.KindGuardedWrite, w-time.Millisecond, w, checker.OutcomeOK)
		out := checker.OutcomeOK
		if rng.IntN(200) == 0 {
			out = checker.OutcomeUnknown
		}
		add(c, checker.KindRelease, w, w+5*time.Millisecond, out)
		free = w + 5*time.Millisecond
		t = free + 50*time.Millisecond
	}
	add("c3", checker.KindCrash, d-time.Second, d-time.Second, checker.OutcomeOK)
	for m := time.Duration(0); m < d; m += time.Minute {
		h.Faults = append(h.Faults,
			checker.FaultEvent{ID: len(h.Faults) + 1, Name: "kill(leader)", Targets: []string{"m1"}, Start: m + 10*time.Second, End: m + 12*time.Second, Healed: true},
			checker.FaultEvent{ID: len(h.Faults) + 2, Name: "pause(client)", Targets: []string{"c2"}, Start: m + 30*time.Second, End: m + 33*time.Second, Healed: true})
	}
	h.End = d
	v := checker.Violation{Kind: checker.ViolationOverlap, Message: "synthetic overlap of op 0 and op 4", Ops: []checker.Operation{h.Ops[0], h.Ops[4]}}
	res := scenarios.Result{
		Version: scenarios.SchemaVersion,
		Scenario: scenarios.Scenario{Version: 1, Name: "lock/synthetic/long", Seed: 1,
			Cluster:  scenarios.Cluster{Members: 3},
			Workload: scenarios.Workload{Family: "lock", Recipe: "synthetic", Clients: clients, Duration: scenarios.Duration(d)}},
		Checks:  []checker.Result{{Checker: checker.CheckerMutualExclusion, Verdict: checker.VerdictViolation, Summary: "synthetic", Violations: []checker.Violation{v}, Metrics: map[string]float64{"violations": 1}}},
		Verdict: checker.VerdictViolation, Why: "mutual-exclusion is violation", Ops: len(h.Ops), Faults: h.Faults,
		Replay: "simrun replay synthetic",
	}
	if err := results.WriteRun(dir, &results.Run{Result: &res, History: h}); err != nil {
		tb.Fatal(err)
	}
}
