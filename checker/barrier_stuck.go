package checker

import (
	"cmp"
	"slices"
	"time"
)

// This file judges that a double barrier's Enter ends once everyone has
// come: after the last heal, no Enter may go on for longer than the bound
// while the barrier's count of clients are arriving or inside.
//
// A client is arriving from the call of an enter until it returns — until
// its client gave up on it, when its outcome is unknown (the recipes give
// the key up with the session then) — and inside from an ok enter's return
// until the client next calls anything at the barrier, its leave; a crash
// of the client ends both. A refused enter is no arrival. The count of
// clients arriving or inside can only be reached when every one of them
// has put its key, so every pending Enter should see the barrier ready.

// arrival is one client's stretch of arriving or being inside.
type arrival struct{ from, to time.Duration }

// judgeStuck reports the enters still waiting past the bound while the
// barrier's count had arrived, after heal. idx is the barrier's
// operations, by call; end is the end of the history.
func (b *barrierRun) judgeStuck(idx []int, crashes map[string][]time.Duration, bound, heal, end time.Duration) {
	full := b.full(b.arrivals(idx, crashes, end))
	if len(full) == 0 {
		return
	}
	for _, i := range idx {
		e := &b.h.Ops[i]
		if e.Kind != KindEnter || e.Outcome == OutcomeFailed {
			continue
		}
		stop := e.Return
		if stop >= Infinity {
			stop = end
			if e.GaveUp > 0 {
				stop = e.GaveUp
			}
		}
		start := max(e.Call, heal)
		k, _ := slices.BinarySearchFunc(full, start, func(a arrival, t time.Duration) int { return cmpDur(a.to, t+1) })
		for ; k < len(full) && full[k].from < stop; k++ {
			from := max(full[k].from, start)
			if addTime(from, bound) >= min(full[k].to, stop) {
				continue
			}
			b.rep.violation(ViolationStuckWait, []*Operation{e},
				"%s's Enter of barrier %s, called at %s, was still waiting at %s, %s after %s, with all %d of its count arriving or inside and none leaving all along",
				e.Client, b.key, fmtTime(e.Call), fmtTime(addTime(from, bound)), bound, fmtTime(from), b.count)
			break
		}
	}
}

// arrivals returns every client's stretches of arriving or being inside.
func (b *barrierRun) arrivals(idx []int, crashes map[string][]time.Duration, end time.Duration) []arrival {
	var out []arrival
	next := map[string]time.Duration{} // per client, the call of its next operation here
	for _, i := range slices.Backward(idx) {
		op := &b.h.Ops[i]
		after, ok := next[op.Client]
		if !ok {
			after = Infinity
		}
		next[op.Client] = op.Call
		if op.Kind != KindEnter || op.Outcome == OutcomeFailed {
			continue
		}
		to := after
		if op.Outcome == OutcomeUnknown {
			to = min(to, end)
			if op.GaveUp > 0 {
				to = min(to, op.GaveUp)
			}
		}
		cs := crashes[op.Client]
		if k, _ := slices.BinarySearch(cs, op.Call); k < len(cs) {
			to = min(to, cs[k])
		}
		if to > op.Call {
			out = append(out, arrival{from: op.Call, to: min(to, end)})
		}
	}
	return out
}

// full returns, by start, the stretches during which at least the
// barrier's count of clients were arriving or inside. A client's leaving
// and another's arriving at one instant count the leaving first.
func (b *barrierRun) full(arr []arrival) []arrival {
	type edge struct {
		at    time.Duration
		delta int
	}
	edges := make([]edge, 0, 2*len(arr))
	for _, a := range arr {
		edges = append(edges, edge{a.from, +1}, edge{a.to, -1})
	}
	slices.SortFunc(edges, func(x, y edge) int {
		return cmp.Or(cmpDur(x.at, y.at), cmp.Compare(x.delta, y.delta))
	})
	var out []arrival
	n, since := 0, time.Duration(0)
	for _, e := range edges {
		was := int64(n) >= b.count
		n += e.delta
		switch now := int64(n) >= b.count; {
		case now && !was:
			since = e.at
		case was && !now && e.at > since:
			out = append(out, arrival{from: since, to: e.at})
		}
	}
	return out
}
