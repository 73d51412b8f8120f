package simrun

import (
	"runtime/debug"
)

// childGCPercent is the garbage collector's target (GOGC) in a child
// process. A child lives for one run: a few etcd members allocate some
// 120 MB over lock/mutex/standard-mix's 12 simulated seconds on a live
// heap of 20–50 MB, and at Go's default of 100 the collector runs every few
// megabytes of that, its mark workers taking about a fifth of the run's
// CPU (the runtime's own estimate, BenchmarkVirtualRunCost's gc-cpu-ms);
// at 400 it runs a few times a run and takes a twentieth. Turning it off
// costs more than it saves: every allocation then lands on memory the
// process has never touched, and the kernel's page faults and zeroing
// come back as system time.
const childGCPercent = 400

// childMemoryLimit bounds a child's heap softly: a run that grows its heap
// past it (a long campaign override, a recipe that leaks) has the
// collector run as often as it takes to stay under it, as at GOGC=100 and
// below, instead of growing to five times its live heap.
const childMemoryLimit = 1 << 30

// tuneChildGC sets the child's collector to childGCPercent and
// childMemoryLimit, unless the environment (getenv) sets GOGC or
// GOMEMLIMIT: a user who set either has chosen. It returns whether it
// changed anything.
func tuneChildGC(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(childGCPercent)
	debug.SetMemoryLimit(childMemoryLimit)
	return true
}
