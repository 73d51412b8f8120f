package simrun_test

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/seed"
)

// BenchmarkInProcessGrowth runs short fault-free runs of each recipe family
// one after another in this process, as simrun -inprocess does, and
// reports what each run leaves behind once its cluster has closed:
// goroutines, heap in use and open file descriptors, per run. A recipe that
// calls etcd's server-side lock or election service (v3lock, election
// server) leaves etcd's in-process client behind in every member that
// served it (docs/upstream.md); the others should leave about nothing.
//
//	go test -run '^$' -bench InProcessGrowth -benchtime 10x ./cmd/simrun/simrun
func BenchmarkInProcessGrowth(b *testing.B) {
	for _, f := range []struct{ name, scenario string }{
		{"lock-mutex", "lock/mutex/leader-kill"},
		{"lock-v3lock", "lock/v3lock/leader-kill"},
		{"election-rechecked", "election/rechecked/standard-mix"},
		{"election-server", "election/server/standard-mix"},
		{"discovery-keepalive", "discovery/keepalive/standard-mix"},
	} {
		b.Run(f.name, func(b *testing.B) {
			s, err := scenarios.Lookup(f.scenario)
			if err != nil {
				b.Fatal(err)
			}
			s.Faults = scenarios.Faults{}
			s.Workload.Duration = scenarios.Duration(time.Second)
			run := func(seed seed.Seed) {
				s.Seed = seed
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if _, err := scenarios.Run(ctx, s, scenarios.Options{}); err != nil {
					b.Fatalf("%s seed %s: %v", s.Name, seed, err)
				}
			}
			run(0) // first use of etcd's and gRPC's package state is not growth
			before := sample()
			b.ResetTimer()
			for i := range b.N {
				run(seed.Seed(i + 1))
			}
			b.StopTimer()
			after := sample()
			n := float64(b.N)
			b.ReportMetric(float64(after.goroutines-before.goroutines)/n, "goroutines/run")
			b.ReportMetric((float64(after.heap)-float64(before.heap))/n/1024, "heap-KiB/run")
			b.ReportMetric(float64(after.fds-before.fds)/n, "fds/run")
		})
	}
}

type growthSample struct {
	goroutines, fds int
	heap            uint64
}

// sample counts, after a GC and a moment for closing goroutines to end,
// the goroutines, the heap in use and the open file descriptors.
func sample() growthSample {
	time.Sleep(500 * time.Millisecond)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fds := -1
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		fds = len(ents)
	}
	return growthSample{goroutines: runtime.NumGoroutine(), heap: ms.HeapInuse, fds: fds}
}
