package checker

import "slices"

// A holder that checks before each step whether it still holds the lock —
// by asking its recipe (a read of its key), not by watching its session —
// knows it holds only at each check. A correct check's yes is true when it
// is given; the step it lets begin takes its time (a read, the work, a
// write), and if the lock is freed in the middle of it nothing but the
// fenced resource can refuse the step's write. So such a hold, judged by
// who held when (MutexOptions.ByChecks), ends at the last step the holder
// began, or at its release if that comes first: an overlap is a holder
// that began a step after its successor acquired — it asked, and was told
// a stale yes, or did not ask. What a step begun in time did after the
// lock was freed is the resource's to judge, as it always is.

// stepKinds are the kinds that begin a step of work on the guarded
// resource, each right after the holder's check. A guarded-write is the
// end of a counter's step, or a write through the recipe's own guard,
// which is fenced in etcd; neither begins a step.
var stepKinds = []Kind{KindCounterIncr, KindCounterRead, KindSetAdd, KindSetRead}

// holdsByChecks returns key's holds each ended at the call of the last
// step its client began on key during it, or at its own end if sooner; a
// hold with no step ends where it began. It does not change holds.
func holdsByChecks(h *History, key string, holds []hold) []hold {
	out := make([]hold, len(holds))
	for i, hd := range holds {
		last := hd.start
		for j := range h.Ops {
			op := &h.Ops[j]
			if op.Client != hd.client || op.Key != key || op.Call < hd.start || op.Call > hd.end || !isStep(op.Kind) {
				continue
			}
			last = max(last, op.Call)
		}
		hd.end = min(hd.end, last)
		out[i] = hd
	}
	return out
}

func isStep(k Kind) bool { return slices.Contains(stepKinds, k) }

// describeByChecks renders an overlap o of holds judged by their checks,
// the earlier of which ran, in full, as earlier: that holder began a step
// at its judged end, after the later one acquired.
func describeByChecks(h *History, p pairKinds, key string, o overlap, earlier hold) (string, []*Operation) {
	msg, ops := describeOverlap(h, p, key, overlap{earlier: earlier, later: o.later})
	return msg + sprintf("; judged by its checks: %s began a step at %s, after %s %s it",
		o.earlier.client, fmtTime(o.earlier.end), o.later.client, p.took), ops
}
