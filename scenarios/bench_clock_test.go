package scenarios_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/seed"
)

// BenchmarkLockScenario runs lock/mutex/standard-mix — 12 s of workload
// under a leader kill, a partition, a client cut off, a leader storm and a
// compaction — on each clock, and reports the median wall time of a run
// and the run's own (virtual or real) time.
func BenchmarkLockScenario(b *testing.B) {
	for _, clock := range cluster.Clocks() {
		b.Run(string(clock), func(b *testing.B) {
			s, err := scenarios.Lookup("lock/mutex/standard-mix")
			if err != nil {
				b.Fatal(err)
			}
			s.Cluster.Clock = clock
			var walls []time.Duration
			var run time.Duration
			for i := 0; b.Loop(); i++ {
				s.Seed = seed.Seed(i + 1)
				t0 := time.Now()
				res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if !res.Met {
					b.Fatalf("seed %s: %s", s.Seed, res.Why)
				}
				walls = append(walls, time.Since(t0))
				run += res.Timings.Total.D()
			}
			sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
			b.ReportMetric(walls[len(walls)/2].Seconds(), "median-wall-s")
			b.ReportMetric(run.Seconds()/float64(len(walls)), "run-s")
		})
	}
}
