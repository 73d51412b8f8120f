package scenarios_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/bubble"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/seed"
)

// testFound runs pitfall s, which expects a violation, as a parallel
// subtest, on its seed and, while the violation is not found, the next
// ones, up to scenarios.DetectionSeeds (whose comment says why).
func testFound(t *testing.T, s scenarios.Scenario) {
	t.Helper()
	t.Run(s.Name, func(t *testing.T) {
		t.Parallel()
		for i := range scenarios.DetectionSeeds {
			c := s
			c.Seed = s.Seed + seed.Seed(i)
			var met bool
			var why string
			run := func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), c.Workload.Duration.D()+2*time.Minute)
				defer cancel()
				r, err := scenarios.Run(ctx, c, scenarios.Options{Out: filepath.Join(t.ArtifactDir(), fmt.Sprintf("seed-%d", c.Seed))})
				if err != nil {
					t.Fatal(err)
				}
				met, why = r.Met, r.Why
			}
			if c.Cluster.Clock == cluster.ClockReal || (c.Cluster.Clock == cluster.ClockDefault && c.Cluster.RealClock != "") {
				run(t)
			} else {
				bubble.Test(t, bubble.Options{Name: c.Name}, run)
			}
			if met {
				if i > 0 {
					t.Logf("%s: found on seed %d, after %d seed(s) that missed it", s.Name, c.Seed, i)
				}
				return
			}
			t.Logf("%s seed %d: not found: %s", s.Name, c.Seed, why)
		}
		t.Errorf("%s: the expected violation (%v) was not found on seeds %d to %d", s.Name, s.Expect, s.Seed, s.Seed+scenarios.DetectionSeeds-1)
	})
}
