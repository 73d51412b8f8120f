package vitess_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/scenarios"

	"example.com/vitess"
)

// all returns vitess's lock under LockSafety and its leader participation
// under ElectionSafety, on the real clock: etcd2topo dials etcd itself
// from an address string.
func all() []scenarios.Scenario {
	var out []scenarios.Scenario
	for _, s := range slices.Concat(scenarios.LockSafety(vitess.Lock), scenarios.ElectionSafety(vitess.Election)) {
		s.Cluster.RealClock = vitess.RealClock
		out = append(out, s)
	}
	return out
}

// vitess under etcdsim's lock and election scenarios: every run is judged,
// and its verdict and sentence are logged.
// Real clock: etcd2topo takes no dial options (RealClock).
func TestVitess(t *testing.T) {
	if testing.Short() {
		t.Skip("real-clock runs")
	}
	for _, s := range scenarios.Seeds(1, 3, all()...) {
		t.Run(s.Name+"/"+s.Seed.String(), func(t *testing.T) {
			t.Parallel()
			r, err := scenarios.Run(context.Background(), s, scenarios.Options{})
			if err != nil {
				t.Fatalf("harness: %v", err)
			}
			t.Logf("%s seed %s: %s in %v wall: %s", s.Name, s.Seed, r.Verdict, r.Timings.Wall.D().Round(time.Millisecond), r.Why)
			for _, c := range r.Checks {
				for i, v := range c.Violations {
					if i < 2 {
						t.Logf("  %s: %s", c.Checker, v.Message)
					}
				}
			}
		})
	}
}

// On the virtual clock the recipes refuse at once, saying which library
// needs real sockets and why.
func TestNeedsTheRealClock(t *testing.T) {
	s := all()[0]
	s.Cluster.RealClock = ""
	s.Cluster.Clock = "virtual"
	r, err := scenarios.Run(context.Background(), s, scenarios.Options{})
	if err == nil && r != nil {
		err = r.Err()
	}
	t.Logf("on the virtual clock: %v", err)
	if !errors.Is(err, cluster.ErrNeedsRealClock) {
		t.Fatalf("a run on the virtual clock = %v; want an error wrapping cluster.ErrNeedsRealClock", err)
	}
}
