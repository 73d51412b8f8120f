package scenarios

import (
	"context"
	"testing"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// TestExplore explores cfg from a test, as Explore does, and fails t with
// every distinct way the recipe broke — each with its smallest schedule,
// seed and replay command — or with the error that stopped it. The runs'
// bubbles open on t (bubble.UseT); cfg.Out "" writes into t's artifact
// directory. It returns the report.
//
//	func TestMyLockExplored(t *testing.T) {
//		scenarios.TestExplore(t, scenarios.ExploreConfig{
//			Family: scenarios.FamilyLock, Own: scenarios.Workload{Lock: &myLock}, Runs: 40})
//	}
func TestExplore(t *testing.T, cfg ExploreConfig) *ExploreReport {
	t.Helper()
	bubble.UseT(t)
	if cfg.Out == "" {
		cfg.Out = t.ArtifactDir()
	}
	if cfg.Replay == "" {
		cfg.Replay = "simrun"
	}
	// Not t.Context: it ends before cleanups run, and every run must heal
	// and close its cluster.
	rep, err := Explore(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Error(err)
	}
	t.Logf("%s", ExploreProgress{Runs: len(rep.Runs), Elapsed: rep.Elapsed.D(), Simulated: rep.Simulated.D(),
		Findings: rep.Findings, Groups: len(rep.Groups)})
	return rep
}
