package checker

import (
	"cmp"
	"slices"
	"sort"
	"time"
)

// This file judges the resource a lock guards, for MutualExclusion: accepted
// guarded writes, and lost updates to a read-modify-write set or counter.

// checkResource runs the resource checks and returns how many resource
// operations it read.
func checkResource(h *History, keys []keyHolds, rep *report) (int, error) {
	for i := range h.Ops {
		switch op := &h.Ops[i]; op.Kind {
		case KindGuardedWrite, KindSetAdd, KindSetRead, KindCounterIncr, KindCounterRead:
			if op.Key == "" {
				return 0, invalidOp(op, "%s without a lock name", op.Kind)
			}
		}
	}
	byKey := make(map[string]*keyHolds, len(keys))
	for i := range keys {
		byKey[keys[i].key] = &keys[i]
	}
	n := checkGuardedWrites(h, byKey, rep)
	n += checkSets(h, rep)
	n += checkCounters(h, rep)
	return n, nil
}

// checkGuardedWrites checks that every accepted guarded write was called
// during a hold of its client that no other client's acquire had
// superseded.
func checkGuardedWrites(h *History, byKey map[string]*keyHolds, rep *report) int {
	keys, groups := groupByKey(h, KindGuardedWrite)
	seen := tokensSeen(h)
	n, accepted := 0, 0
	for _, k := range keys {
		kh := byKey[k]
		var holds []hold
		if kh != nil {
			holds = kh.holds
		}
		// mine[c]: indices into holds of client c's holds, by start.
		mine := map[string][]int{}
		for i, hd := range holds {
			mine[hd.client] = append(mine[hd.client], i)
		}
		// latest[i] is the hold among holds[:i+1] whose acquire was called
		// last.
		latest := make([]int, len(holds))
		for i := range holds {
			latest[i] = i
			if i > 0 && h.Ops[holds[latest[i-1]].take].Call > h.Ops[holds[i].take].Call {
				latest[i] = latest[i-1]
			}
		}
		for _, wi := range groups[k] {
			n++
			w := &h.Ops[wi]
			if w.Outcome != OutcomeOK {
				continue
			}
			accepted++
			own := -1
			if m := mine[w.Client]; len(m) > 0 {
				i := sort.Search(len(m), func(i int) bool { return holds[m[i]].start > w.Call }) - 1
				if i >= 0 && w.Call <= holds[m[i]].end {
					own = m[i]
				}
			}
			if own < 0 {
				rep.violation(ViolationUnguardedWrite, []*Operation{w},
					"the resource guarded by lock %s accepted %s's write of %q at %s, while %s did not hold the lock",
					k, w.Client, w.Input.Value, fmtTime(w.Call), w.Client)
				continue
			}
			// The holds that began before the write was called.
			j := sort.Search(len(holds), func(i int) bool { return holds[i].start >= w.Call }) - 1
			if j < 0 {
				continue
			}
			newer := holds[latest[j]]
			if w.Input.Token > 0 && seen[k].before(w.Call) <= w.Input.Token {
				continue // fenced, and no higher token had reached the resource
			}
			if h.Ops[newer.take].Call > holds[own].start {
				rep.violation(ViolationStaleWrite, []*Operation{&h.Ops[holds[own].take], &h.Ops[newer.take], w},
					"the resource guarded by lock %s accepted %s's write of %q at %s although %s had acquired the lock at %s, after %s acquired it at %s%s",
					k, w.Client, w.Input.Value, fmtTime(w.Call), newer.client, fmtTime(newer.start),
					w.Client, fmtTime(holds[own].start), wrotePastExpiry(h, holds[own], wi))
			}
		}
	}
	rep.res.Metrics["guarded_writes_accepted"] = float64(accepted)
	return n
}

// tokenTrail is, for one resource, the highest token it had seen by each
// time: the returns of its ok guarded-writes and counter-reads that carried
// a token, in order, each with the highest token up to it.
type tokenTrail []struct {
	at    time.Duration
	token int64
}

// tokensSeen returns each resource's token trail, by lock name.
func tokensSeen(h *History) map[string]tokenTrail {
	type seen struct {
		at    time.Duration
		token int64
	}
	byKey := map[string][]seen{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if (op.Kind == KindGuardedWrite || op.Kind == KindCounterRead) && op.Outcome == OutcomeOK && op.Input.Token > 0 {
			byKey[op.Key] = append(byKey[op.Key], seen{op.Return, op.Input.Token})
		}
	}
	out := make(map[string]tokenTrail, len(byKey))
	for k, ss := range byKey {
		slices.SortFunc(ss, func(a, b seen) int { return cmp.Compare(a.at, b.at) })
		trail := make(tokenTrail, len(ss))
		var high int64
		for i, x := range ss {
			high = max(high, x.token)
			trail[i].at, trail[i].token = x.at, high
		}
		out[k] = trail
	}
	return out
}

// before returns the highest token the resource had seen by operations
// that returned before t; 0 if none.
func (tr tokenTrail) before(t time.Duration) int64 {
	i := sort.Search(len(tr), func(i int) bool { return tr[i].at >= t })
	if i == 0 {
		return 0
	}
	return tr[i-1].token
}

// checkSets looks for lost updates in sets built with set-add and read with
// set-read.
func checkSets(h *History, rep *report) int {
	keys, groups := groupByKey(h, KindSetAdd, KindSetRead)
	n, lost := 0, 0
	for _, k := range keys {
		var adds, reads []int
		for _, i := range groups[k] {
			n++
			switch op := &h.Ops[i]; {
			case op.Kind == KindSetAdd && op.Outcome != OutcomeFailed:
				adds = append(adds, i)
			case op.Kind == KindSetRead && op.Outcome == OutcomeOK:
				reads = append(reads, i)
			}
		}
		// firstCall: for each element, the earliest call of an add that
		// may have written it.
		firstCall := map[string]time.Duration{}
		for _, i := range adds {
			v := h.Ops[i].Input.Value
			if t, ok := firstCall[v]; !ok || h.Ops[i].Call < t {
				firstCall[v] = h.Ops[i].Call
			}
		}
		okAdds := slices.DeleteFunc(slices.Clone(adds), func(i int) bool { return h.Ops[i].Outcome != OutcomeOK })
		slices.SortFunc(okAdds, func(a, b int) int { return cmp.Compare(h.Ops[a].Return, h.Ops[b].Return) })
		for _, ri := range reads {
			r := &h.Ops[ri]
			have := make(map[string]bool, len(r.Output.Values))
			for _, v := range r.Output.Values {
				have[v] = true
				if t, ok := firstCall[v]; !ok || t > r.Return {
					rep.violation(ViolationPhantomUpdate, []*Operation{r},
						"%s's read of the set guarded by lock %s at %s contains %q, which no add called before the read returned could have written",
						r.Client, k, fmtTime(r.Call), v)
				}
			}
			for _, ai := range okAdds {
				a := &h.Ops[ai]
				if a.Return >= r.Call {
					break
				}
				if !have[a.Input.Value] {
					lost++
					rep.violation(ViolationLostUpdate, []*Operation{a, r},
						"%s's read of the set guarded by lock %s at %s lacks %q, which %s added at %s (ok at %s): a lost update",
						r.Client, k, fmtTime(r.Call), a.Input.Value, a.Client, fmtTime(a.Call), fmtTime(a.Return))
				}
			}
		}
	}
	rep.res.Metrics["lost_set_updates"] = float64(lost)
	return n
}

// checkCounters looks for lost or phantom increments of counters built with
// counter-incr and read with counter-read.
func checkCounters(h *History, rep *report) int {
	keys, groups := groupByKey(h, KindCounterIncr, KindCounterRead)
	n, lost := 0, 0
	for _, k := range keys {
		var okReturns, mayCalls []time.Duration
		var reads []int
		for _, i := range groups[k] {
			n++
			op := &h.Ops[i]
			switch {
			case op.Kind == KindCounterIncr && op.Outcome == OutcomeOK:
				okReturns = append(okReturns, op.Return)
				mayCalls = append(mayCalls, op.Call)
			case op.Kind == KindCounterIncr && op.Outcome == OutcomeUnknown:
				mayCalls = append(mayCalls, op.Call)
			case op.Kind == KindCounterRead && op.Outcome == OutcomeOK:
				reads = append(reads, i)
			}
		}
		slices.Sort(okReturns)
		slices.Sort(mayCalls)
		slices.SortFunc(reads, func(a, b int) int { return cmp.Compare(h.Ops[a].Call, h.Ops[b].Call) })
		reported := 0 // the largest deficit reported: a lost update is told once, not at every later read
		for _, ri := range reads {
			r := &h.Ops[ri]
			// Increments that returned before the read was called.
			least := sort.Search(len(okReturns), func(i int) bool { return okReturns[i] >= r.Call })
			// Increments called by the time the read returned.
			most := sort.Search(len(mayCalls), func(i int) bool { return mayCalls[i] > r.Return })
			switch got := r.Output.Count; {
			case got < int64(least) && least-int(got) > reported:
				lost += least - int(got) - reported
				reported = least - int(got)
				rep.violation(ViolationLostUpdate, []*Operation{r},
					"%s read the counter guarded by lock %s as %d at %s, but %d increments had completed before the read began: %s",
					r.Client, k, got, fmtTime(r.Call), least, plural(least-int(got), "lost update"))
			case got > int64(most):
				rep.violation(ViolationPhantomUpdate, []*Operation{r},
					"%s read the counter guarded by lock %s as %d at %s, but at most %d increments had been called by then",
					r.Client, k, got, fmtTime(r.Call), most)
			}
		}
	}
	rep.res.Metrics["lost_counter_updates"] = float64(lost)
	return n
}

// wrotePastExpiry says, when the faults prove it, that the write w (an
// index in History.Ops) came after the writer's lease, that of its hold hd,
// had expired on the server, by how much, and why; "" otherwise.
func wrotePastExpiry(h *History, hd hold, wi int) string {
	w := &h.Ops[wi]
	e, ok := leaseExpiry(h, hd.client, hd.take, w.Call)
	if !ok {
		return ""
	}
	msg := sprintf("; %s wrote %s after %s", w.Client, fmtDur(w.Call-e.at), e.since(hd.client))
	// The writer's last step before the write: if it came before a pause
	// that lasted past the expiry ended, the pause fell between a check and
	// the write; otherwise the holder ran on after its lease expired, and
	// whatever told it to stop came late.
	last := h.Ops[hd.take].Return
	for i := range h.Ops {
		op := &h.Ops[i]
		if i != wi && op.Client == w.Client && op.Call > last && op.Call < w.Call {
			last = op.Call
		}
	}
	if e.fault.Action == "pause" && e.fault.Healed && last < e.fault.End {
		return msg + sprintf("; its last step before the write was at %s, before the pause ended at %s: %s",
			fmtTime(last), fmtTime(e.fault.End), pausedFix)
	}
	return msg + "; " + lockSignal(h, hd, e)
}
