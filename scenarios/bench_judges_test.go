//go:build linux

package scenarios_test

import (
	"flag"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"golang.org/x/sys/unix"
)

// BenchmarkKeysOnLeasesOverhead measures what watching the recipe's leases
// and keys costs the check of a gallery run: each row of galleryCheckRows
// (the standard mixes and pitfalls of four families; with
// -overhead-all-rows, every registered scenario) runs once; then
// its checks are timed as they were before (the history without the
// calls the clients' connections record, History.Calls, nor its end state,
// and without keys-on-leases) and as they are now (the whole history, every
// check). overhead-% is the added check time over all the scenarios, from the medians of the rounds
// (overhead-min-%: from the fastest rounds). The runs come from
// galleryRuns, in BenchmarkGalleryCheck's file, which stays whole so that
// it runs at any commit; it is unix-only, and this one Linux-only (it reads
// a thread's CPU time).
// overheadAllRows has BenchmarkKeysOnLeasesOverhead measure the whole
// registry instead of galleryCheckRows (its runs take a few minutes).
var overheadAllRows = flag.Bool("overhead-all-rows", false, "BenchmarkKeysOnLeasesOverhead: every registered scenario, not the twelve rows")

func BenchmarkKeysOnLeasesOverhead(b *testing.B) {
	type run struct {
		s          scenarios.Scenario
		now, older checker.History
	}
	var runs []run
	rows := galleryCheckRows
	if *overheadAllRows {
		rows = nil
		for _, s := range scenarios.All() {
			rows = append(rows, s.Name)
		}
	}
	for _, g := range galleryRuns(b, rows) {
		older := g.h
		older.Calls, older.Final = nil, nil
		runs = append(runs, run{g.s, g.h, older})
	}
	// A check runs on this goroutine alone, locked to its thread, and is
	// timed by the thread's CPU time: on a shared machine another
	// program's burst moves the wall clock of a 10 ms round by tens of
	// percent and this thread's CPU time little.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	check := func(s scenarios.Scenario, h checker.History, skip checker.Name) time.Duration {
		t0 := threadCPU(b)
		for _, c := range s.Checkers {
			if c.Name != skip {
				c.Run(h, s.Workload.TTL.D())
			}
		}
		return threadCPU(b) - t0
	}
	// The machines are shared: each round times before and after back to
	// back, and the overhead is taken from the medians of the rounds, which
	// another process's burst moves less than it moves a sum.
	var before, after []time.Duration
	ops, added := 0, 0
	for _, r := range runs {
		ops += len(r.older.Ops)
		added += len(r.now.Calls)
	}
	// Which goes first alternates, so that neither gains from caches the
	// other warmed.
	for round := 0; b.Loop(); round++ {
		var bt, at time.Duration
		for _, r := range runs {
			if round%2 == 0 {
				bt += check(r.s, r.older, checker.CheckerKeysOnLeases)
				at += check(r.s, r.now, "")
			} else {
				at += check(r.s, r.now, "")
				bt += check(r.s, r.older, checker.CheckerKeysOnLeases)
			}
		}
		before, after = append(before, bt), append(after, at)
	}
	mb, ma := median(before), median(after)
	b.ReportMetric(float64(mb.Microseconds()), "cpu-µs/check-before")
	b.ReportMetric(float64(ma.Microseconds()), "cpu-µs/check-now")
	b.ReportMetric(100*(float64(ma)-float64(mb))/float64(mb), "overhead-%")
	b.ReportMetric(100*(float64(slices.Min(after))-float64(slices.Min(before)))/float64(slices.Min(before)), "overhead-min-%")
	b.ReportMetric(float64(ops), "ops-before")
	b.ReportMetric(float64(added), "ops-added")
}

// threadCPU is the CPU time of the calling thread, from the kernel's
// per-thread clock (getrusage's per-thread times move in ticks, too coarse
// for a check of a few milliseconds).
func threadCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}
