package scenarios

import (
	"github.com/etcdsim/etcdsim/recipes/barrier"
)

// The upstream scenarios of the plain-barrier family.

// upstreamBarrierWait: etcd's Barrier.Wait under compactedWatch's
// schedule. c2 waits at the barrier from the start, watching for its
// delete from the revision after its read; its connections are reset
// while the holder writes its work and etcd compacts past that revision.
// When c2 is back its watch resumes from a compacted revision, etcd
// cancels it, and Wait returns nil about a second later with the barrier
// still held for two more. The fix reads the key after the wait and, the
// hold it began on still there, waits again.
func upstreamBarrierWait() []Scenario {
	return compactedWatchPair("etcdsim-barrier-wait", barrier.LookupPlain, func(r barrier.PlainRecipe) Scenario {
		w, tl := compactedWatch()
		s := plainBarrierBase(r, w)
		s.Faults.Timeline = tl
		return s
	},
		"a waiter's watch resumes from a compacted revision after its connections are reset, is cancelled, and Barrier.Wait returns nil with the barrier still held",
		"the same schedule with the key read after the wait: the hold is still there, and the waiter waits again until the release")
}
