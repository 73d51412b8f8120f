package scenarios_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/scenarios"
)

func TestTmpDump(t *testing.T) {
	tl := &faults.Timeline{Steps: []faults.Step{
		faults.At(500*time.Millisecond, 1500*time.Millisecond, faults.Crash(faults.Client("c1"))),
		faults.At(700*time.Millisecond, 1500*time.Millisecond, faults.Crash(faults.Client("o1"))),
		faults.At(2500*time.Millisecond, time.Second, faults.Pause(faults.Client("c2"))),
		faults.At(4*time.Second, 0, faults.Compact()),
	}}
	for _, w := range []scenarios.Workload{
		{Family: scenarios.FamilyElection, Recipe: "rechecked"},
		{Family: scenarios.FamilyDiscovery, Recipe: "keepalive"},
		{Family: scenarios.FamilyRegister, Observers: 1},
	} {
		w.Duration = scenarios.Duration(9 * time.Second)
		res, err := scenarios.Run(context.Background(), scenarios.Scenario{Name: "x/" + w.Family, Workload: w, Seed: 2, Faults: scenarios.Faults{Timeline: tl}}, scenarios.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(res.Why, res.ScheduleErr)
		for _, c := range res.Checks {
			fmt.Println(c.Checker, c.Verdict, c.Summary, c.Metrics)
			for _, v := range c.Violations {
				fmt.Println("   ", v.Message)
			}
		}
		n := map[checker.Kind]map[checker.Outcome]int{}
		for _, op := range res.History().Ops {
			if n[op.Kind] == nil {
				n[op.Kind] = map[checker.Outcome]int{}
			}
			n[op.Kind][op.Outcome]++
		}
		fmt.Println(n)
		for _, op := range res.History().Ops {
			if op.Kind != checker.KindResolve && op.Kind != checker.KindRPC && op.Kind != checker.KindRead && op.Kind != checker.KindWatchEvent && op.Outcome != checker.OutcomeOK || op.Kind == checker.KindCrash || op.Kind == checker.KindRegister|| op.Kind == checker.KindWatch|| op.Kind == checker.KindList {
				fmt.Println(op)
			}
		}
	}
}
