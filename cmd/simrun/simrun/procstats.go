package simrun

import (
	"bytes"
	"os"
	"runtime"
	"strconv"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

// The figures of a run's process (results.ProcStats) are sampled here,
// once the run's cluster had closed: with -parallel above 1 they count
// the runs still going as well. The same figures of simrun itself,
// sampled as each run finished, are the run's parent: flat along a
// campaign if runs leave nothing behind in simrun.

// sampleProc samples the process. It stops the world briefly, once per
// run.
func sampleProc() *results.ProcStats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return &results.ProcStats{Goroutines: runtime.NumGoroutine(), HeapInUse: ms.HeapInuse, RSS: rss(), FDs: fds()}
}

// fds counts the entries of /proc/self/fd (Linux), or returns 0.
func fds() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(ents)
}

// rss reads the resident set size from /proc/self/statm (Linux), or
// returns 0.
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}
