//go:build unix

package scenarios_test

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// galleryCheckRows are gallery rows whose check time
// BenchmarkGalleryCheck measures: the standard mixes of the families whose
// keys live on leases, and pitfalls of each of them, lock, election,
// discovery and rw-mutex.
var galleryCheckRows = []string{
	"lock/mutex/standard-mix", "election/rechecked/standard-mix",
	"discovery/keepalive/standard-mix", "rwmutex/checked/standard-mix",
	"lock/released-marker/healthy", "lock/setnx/crash-holder", "lock/orphaned-waiter/impatient-waiter",
	"lock/keepalive-misconfigured/isolate-holder", "election/modrevision/healthy",
	"election/ignoresdone/pause-leader", "discovery/noreregister/revoke-lease",
	"rwmutex/reader-ignores-done/isolate-reader",
}

// BenchmarkGalleryCheck measures what a run's check costs on the gallery:
// each row of galleryCheckRows runs once (seed 1); then every check its
// scenario names runs on its history, all rows in a round. µs/check is the
// median round's wall time, µs/check-min the fastest's, and cpu-µs/check
// the process's CPU time per round, which other programs on a shared
// machine move less than they move the wall clock. The file reads the same at every commit since the judges
// were first named in scenarios, so the cost of a change to the judges or
// to what a history records is the difference between two commits' runs
// of it, side by side:
//
//	go test -run '^$' -bench GalleryCheck -benchtime 200x ./scenarios/
func BenchmarkGalleryCheck(b *testing.B) {
	runs := galleryRuns(b, galleryCheckRows)
	ops := 0
	for _, r := range runs {
		ops += len(r.h.Ops)
	}
	var rounds []time.Duration
	cpu0 := checkCPU(b)
	for b.Loop() {
		t0 := time.Now()
		for _, r := range runs {
			for _, c := range r.s.Checkers {
				c.Run(r.h, r.s.Workload.TTL.D())
			}
		}
		rounds = append(rounds, time.Since(t0))
	}
	cpu := checkCPU(b) - cpu0
	slices.Sort(rounds)
	b.ReportMetric(float64(rounds[len(rounds)/2].Microseconds()), "µs/check")
	b.ReportMetric(float64(rounds[0].Microseconds()), "µs/check-min")
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(rounds)), "cpu-µs/check")
	b.ReportMetric(float64(ops), "ops")
}

// galleryRun is what one run of a registered scenario ran and recorded.
type galleryRun struct {
	s scenarios.Scenario
	h checker.History
}

// galleryRuns runs each of the registered scenarios called names once, on
// its own seed, for a benchmark of their checks.
func galleryRuns(b *testing.B, names []string) []galleryRun {
	b.Helper()
	var runs []galleryRun
	for _, name := range names {
		s, err := scenarios.Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		res, err := scenarios.Run(ctx, s, scenarios.Options{})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, galleryRun{res.Scenario, res.History()})
	}
	return runs
}

// checkCPU is the CPU time the process has used, user and system.
func checkCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
