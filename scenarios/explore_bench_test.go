package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/seed"
)

// BenchmarkExploreOwnCost measures what the explorer itself spends on a
// run — drawing (or mutating), building and validating the scenario,
// reading the run's features, the guide's bookkeeping and the journal's
// line — against the CPU time of the runs it explores, measured over a few
// real lock runs. The explorer's share must stay a few percent.
func BenchmarkExploreOwnCost(b *testing.B) {
	d := drawer{fam: exploreFamilyOf(FamilyLock), space: Space{}.withDefaults()}
	base := Scenario{Name: "lock/mutex/explore", Workload: Workload{Family: FamilyLock, Recipe: "mutex"}, Seed: 1}
	var results []*Result
	var draws []draw
	cpu0 := cpuTime()
	for i := 0; len(results) < 4; i++ {
		x := d.draw(seed.Seed(9).Rand(exploreStream + uint64(i)))
		s, err := d.scenario(base, x, fmt.Sprintf("lock/mutex/explore-%d", i))
		if err != nil || s.Validate() != nil {
			continue // a draw the explorer would draw again
		}
		ctx, cancel := context.WithTimeout(context.Background(), budget(s))
		res, err := Run(ctx, s, Options{})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		results, draws = append(results, res), append(draws, x)
	}
	runCPU := (cpuTime() - cpu0) / time.Duration(len(results))
	g := newGuide()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		rng := seed.Seed(9).Rand(exploreStream + uint64(1000+i))
		x := d.draw(rng)
		if parent, ok := g.parent(rng); ok {
			x = d.mutate(rng, parent)
		}
		s, err := d.scenario(base, x, "lock/mutex/explore-x")
		if err == nil {
			_ = s.Validate()
		}
		res := results[i%len(results)]
		r := ExploreRun{Index: i, Draw: draws[i%len(draws)], Outcome: OutcomeClean, Features: features(res, draws[i%len(draws)])}
		g.learn(r)
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
		i++
	}
	own := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(own.Microseconds()), "explorer-µs/run")
	b.ReportMetric(float64(runCPU.Milliseconds()), "run-cpu-ms/run")
	b.ReportMetric(100*float64(own)/float64(runCPU), "explorer-%")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
