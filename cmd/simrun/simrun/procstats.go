package simrun

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
)

// procStats is the simrun process as a run left it, sampled once the
// run's cluster had closed. With -parallel above 1 it counts the runs
// still going as well. Read along a long campaign's runs in summary.json,
// it shows whether goroutines or memory pile up from run to run:
//
//	jq -r '.runs[] | [.process.goroutines, .process.heap_inuse_bytes, .process.rss_bytes] | @tsv' summary.json
//
// The same figures of simrun itself, sampled as each run finished, are
// the run's parent: flat along a campaign if runs leave nothing behind in
// simrun.
type procStats struct {
	Goroutines int `json:"goroutines"`
	// HeapInUse is the Go heap's in-use spans (runtime.MemStats.HeapInuse).
	HeapInUse uint64 `json:"heap_inuse_bytes"`
	// RSS is the resident set size; 0 (left out) where /proc is not.
	RSS uint64 `json:"rss_bytes,omitempty"`
	// FDs counts the open file descriptors; 0 (left out) where /proc is
	// not.
	FDs int `json:"fds,omitempty"`
}

// sampleProc samples the process. It stops the world briefly, once per
// run.
func sampleProc() *procStats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return &procStats{Goroutines: runtime.NumGoroutine(), HeapInUse: ms.HeapInuse, RSS: rss(), FDs: fds()}
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
