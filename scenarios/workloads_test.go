package scenarios_test

import (
	"context"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// Each family's workload, on a healthy cluster, passes its default
// checkers and records the operations they read.
func TestWorkloadsHealthy(t *testing.T) {
	tests := []struct {
		name     string
		workload scenarios.Workload
		kinds    []checker.Kind // each recorded at least once with outcome ok
	}{
		{
			name:     "election/rechecked/healthy",
			workload: scenarios.Workload{Family: scenarios.FamilyElection, Recipe: "rechecked"},
			kinds:    []checker.Kind{checker.KindCampaign, checker.KindGuardedWrite, checker.KindResign, checker.KindLeaderObserved},
		},
		{
			name:     "discovery/keepalive/healthy",
			workload: scenarios.Workload{Family: scenarios.FamilyDiscovery, Recipe: "keepalive"},
			kinds:    []checker.Kind{checker.KindRegister, checker.KindResolve, checker.KindRPC, checker.KindDeregister},
		},
		{
			name:     "register/kv/healthy",
			workload: scenarios.Workload{Family: scenarios.FamilyRegister, Observers: 1},
			kinds: []checker.Kind{checker.KindRead, checker.KindWrite, checker.KindCAS, checker.KindDelete,
				checker.KindList, checker.KindWatch, checker.KindWatchEvent},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.workload.Duration = scenarios.Duration(3 * time.Second)
			res := runScenario(t, scenarios.Scenario{Name: tt.name, Workload: tt.workload, Seed: 1})
			ok := map[checker.Kind]int{}
			for _, op := range res.History().Ops {
				if op.Outcome == checker.OutcomeOK {
					ok[op.Kind]++
				}
			}
			for _, k := range tt.kinds {
				if ok[k] == 0 {
					t.Errorf("no %s recorded with outcome ok among %d operations (ok by kind: %v)", k, res.Ops, ok)
				}
			}
		})
	}
}

// runScenario runs s and fails the test unless it met its expectation.
func runScenario(t *testing.T, s scenarios.Scenario) *scenarios.Result {
	t.Helper()
	// Not t.Context: the run must heal and close its cluster whatever
	// happens.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := scenarios.Run(ctx, s, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s (%d operations, %d fault events)", s.Name, res.Why, res.Ops, len(res.Faults))
	return res
}
