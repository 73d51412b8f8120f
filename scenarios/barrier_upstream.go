package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/recipes/barrier"
)

// The upstream scenarios of the double-barrier family.

// upstreamDoubleBarrierEnter: etcd's DoubleBarrier.Enter under
// compactedEnter's schedule. c1 waits in Enter for the others, watching
// <B>/ready from its own key's revision; its connections are reset while
// c2 arrives and etcd compacts past that revision. When c1 is back its
// watch resumes from a compacted revision, etcd cancels it, and Enter
// returns nil with c4 yet to arrive. The fix reads the ready key after
// Enter and, finding none, gives up its session and enters again.
func upstreamDoubleBarrierEnter() []Scenario {
	return compactedWatchPair("etcdsim-double-barrier-enter", barrier.Lookup, func(r barrier.Recipe) Scenario {
		w, tl := compactedEnter()
		s := barrierBase(r, w)
		s.Faults.Timeline = tl
		return s
	},
		"a process waiting in Enter has its connections reset while the others arrive and etcd compacts; its watch resumes from a compacted revision, is cancelled, and Enter returns nil before the last process has arrived",
		"the same schedule with the ready key read after Enter: it is not there, and the process enters again and waits until the last has arrived")
}

// compactedEnter is a waiter's watch in Enter resumed past a compaction.
// Four processes arrive 1.5 s apart (Workload.Stagger): c1 at the start,
// c4, the last, at 4.5 s. c2's arrival at 1.5 s is the write that moves
// the revision past the one c1's watch began at — the smallest honest
// mover, since the barrier's own keys are all the workload writes while
// it fills. c1's connections are reset from 0.2 s to 1.8 s, and etcd
// compacts at 1.7 s, after c2's key. c1's client connects again on its
// backoff, 0.7 to 1.2 s after the heal: its early Enter returned between
// 2.5 and 3.0 s in 20 runs on each clock. That is why four and not three:
// a third arriving at 3 s would race it, where the fourth comes 1.5 s
// after. The TTL of 5 s keeps c1's session alive while it is cut off, so
// the early Enter is the compacted watch's doing alone.
func compactedEnter() (Workload, *faults.Timeline) {
	w := barrierRounds(6 * time.Second)
	w.Stagger = Duration(1500 * time.Millisecond)
	w.TTL = Duration(5 * time.Second)
	return w, &faults.Timeline{Steps: []faults.Step{
		faults.At(200*time.Millisecond, 1600*time.Millisecond, faults.Reset(faults.Client("c1"))),
		faults.At(1700*time.Millisecond, 0, faults.Compact()),
	}}
}
