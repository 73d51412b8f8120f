package checker

import (
	"cmp"
	"slices"
	"time"
)

// This file turns the take/give operations of locks (acquire/release) and of
// elections (campaign/resign) into holds: the intervals during which a client
// believed it held a lock or led an election. MutualExclusion,
// ElectionSafety, LockLinearizable and Liveness all read them, so all four
// agree on what a history means and on which histories are invalid.
//
// A client's hold on key K starts when its ok take returns and ends when it
// calls a give whose outcome is ok or unknown, or when it crashes; a give
// that failed leaves the hold in place. A take whose outcome is unknown
// gives no hold (the client never learnt it held anything) but makes one
// later give by that client legitimate. A failed take gives nothing.

// pairKinds describes a take/give protocol and the words for it.
type pairKinds struct {
	take, give Kind
	noun       string // "lock", "election"
	took, gave string // "acquired", "released"
	holding    string // "held it", "led it"
	// shared is the pair whose holds Liveness counts as holds of the same
	// key: a read lock's for a lock; nil if none.
	shared *pairKinds
}

// takes reports whether k takes the key in p or in the pair it shares
// the key with.
func (p pairKinds) takes(k Kind) bool {
	return k == p.take || p.shared != nil && k == p.shared.take
}

// gives reports whether k gives the key back in p or in the pair it
// shares the key with.
func (p pairKinds) gives(k Kind) bool {
	return k == p.give || p.shared != nil && k == p.shared.give
}

var (
	lockPair = pairKinds{take: KindAcquire, give: KindRelease,
		noun: "lock", took: "acquired", gave: "released", holding: "held it", shared: &readPair}
	electionPair = pairKinds{take: KindCampaign, give: KindResign,
		noun: "election", took: "became leader of", gave: "resigned", holding: "led it"}
)

// hold is one interval during which client believed it held a key.
type hold struct {
	client     string
	take       int           // index of the ok take in History.Ops
	start, end time.Duration // take's Return; give's or crash's Call, or Infinity
	give       int           // index of the give or crash that ended it; -1 if none
}

// linStep is a take or give as a linearizability checker sees it. Failed
// operations are left out; a crash that may have freed the key becomes a
// give of unknown outcome called at the crash.
type linStep struct {
	op    int // index in History.Ops
	give  bool
	crash bool
	// gen numbers the client's takes that may have given it the key (ok
	// or unknown), from 0. A take carries its own number; a give the
	// number of the client's latest take, and it can free only holds of
	// that number or lower: a release delayed in flight can free the hold
	// it was meant for, never one the client took after it.
	gen int
}

// keyHolds is what one key's operations amount to.
type keyHolds struct {
	key   string
	ops   []int // the key's takes and gives, and its clients' crashes, by call
	holds []hold
	steps []linStep
}

// byCall orders operation indices by call time, then ID.
func byCall(h *History) func(a, b int) int {
	return func(a, b int) int {
		x, y := &h.Ops[a], &h.Ops[b]
		if c := cmp.Compare(x.Call, y.Call); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	}
}

// sortByCall sorts idx by call time, cheaply when it already is sorted.
func sortByCall(h *History, idx []int) {
	f := byCall(h)
	if !slices.IsSortedFunc(idx, f) {
		slices.SortFunc(idx, f)
	}
}

// groupByKey returns, for each key in sorted order, the indices of the
// operations whose kind is in kinds, in call order.
func groupByKey(h *History, kinds ...Kind) (keys []string, groups map[string][]int) {
	groups = map[string][]int{}
	for i := range h.Ops {
		if slices.Contains(kinds, h.Ops[i].Kind) {
			k := h.Ops[i].Key
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], i)
		}
	}
	slices.Sort(keys)
	for _, idx := range groups {
		sortByCall(h, idx)
	}
	return keys, groups
}

// collectHolds validates the take/give operations of every key and returns
// their holds, keys in sorted order and holds by start. The history must
// already have passed Validate.
func collectHolds(h *History, p pairKinds) ([]keyHolds, error) {
	keys, groups := groupByKey(h, p.take, p.give)
	crashes := map[string][]int{}
	for i := range h.Ops {
		if h.Ops[i].Kind == KindCrash {
			crashes[h.Ops[i].Client] = append(crashes[h.Ops[i].Client], i)
		}
	}
	out := make([]keyHolds, 0, len(keys))
	for _, k := range keys {
		idx := groups[k]
		if k == "" {
			return nil, invalidOp(&h.Ops[idx[0]], "%s without a %s name", h.Ops[idx[0]].Kind, p.noun)
		}
		if len(crashes) > 0 {
			seen := map[string]bool{}
			for _, i := range groups[k] {
				c := h.Ops[i].Client
				if !seen[c] {
					seen[c] = true
					idx = append(idx, crashes[c]...)
				}
			}
			sortByCall(h, idx)
		}
		kh, err := holdsOfKey(h, p, k, idx)
		if err != nil {
			return nil, err
		}
		out = append(out, kh)
	}
	return out, nil
}

// clientState is where one client stands on one key.
type clientState struct {
	open  int  // index into keyHolds.holds of the client's open hold; -1 if none
	maybe bool // an unknown take may have given the client the key
	takes int  // ok and unknown takes so far
}

func holdsOfKey(h *History, p pairKinds, key string, idx []int) (keyHolds, error) {
	kh := keyHolds{key: key, ops: idx}
	// Few clients per key: a slice beats a map here.
	var names []string
	var states []clientState
	state := func(c string) *clientState {
		for i, n := range names {
			if n == c {
				return &states[i]
			}
		}
		names = append(names, c)
		states = append(states, clientState{open: -1})
		return &states[len(states)-1]
	}
	for _, i := range idx {
		op := &h.Ops[i]
		st := state(op.Client)
		switch op.Kind {
		case p.take:
			if st.open >= 0 {
				return kh, invalidOp(op, "%s %s while it already %s (since %s)",
					op.Client, op.Kind, p.holding, h.Ops[kh.holds[st.open].take])
			}
			switch op.Outcome {
			case OutcomeOK:
				st.open = len(kh.holds)
				kh.holds = append(kh.holds, hold{client: op.Client, take: i, start: op.Return, end: Infinity, give: -1})
				kh.steps = append(kh.steps, linStep{op: i, gen: st.takes})
				st.takes++
			case OutcomeUnknown:
				st.maybe = true
				kh.steps = append(kh.steps, linStep{op: i, gen: st.takes})
				st.takes++
			}
		case p.give:
			switch {
			case st.open >= 0:
				hd := &kh.holds[st.open]
				if op.Call < hd.start {
					return kh, invalidOp(op, "called before its %s returned at %s", p.take, fmtTime(hd.start))
				}
				if op.Outcome == OutcomeFailed {
					continue // still held
				}
				hd.end, hd.give = op.Call, i
				st.open, st.maybe = -1, false
				kh.steps = append(kh.steps, linStep{op: i, give: true, gen: st.takes - 1})
			case st.maybe:
				if op.Outcome == OutcomeFailed {
					continue
				}
				st.maybe = false
				kh.steps = append(kh.steps, linStep{op: i, give: true, gen: st.takes - 1})
			default:
				return kh, invalidOp(op, "%s with no matching %s", op.Kind, p.take)
			}
		case KindCrash:
			if st.open >= 0 {
				hd := &kh.holds[st.open]
				if op.Call < hd.start {
					return kh, invalidOp(&h.Ops[hd.take], "returned at %s, after %s crashed at %s",
						fmtTime(hd.start), op.Client, fmtTime(op.Call))
				}
				hd.end, hd.give = op.Call, i
			}
			if st.open >= 0 || st.maybe {
				kh.steps = append(kh.steps, linStep{op: i, give: true, crash: true, gen: st.takes - 1})
			}
			st.open, st.maybe = -1, false
		}
	}
	slices.SortFunc(kh.holds, func(a, b hold) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end), cmp.Compare(a.take, b.take))
	})
	return kh, nil
}

// overlap is a hold that began while another was still in force.
type overlap struct {
	earlier, later hold
}

// overlaps finds, in a key's holds sorted by start and then end, every hold
// that shares more than an instant with the longest-running earlier hold.
// Holds that touch (one ends at the instant the other starts) do not
// overlap, and neither does a hold of no length at the start of another:
// the client released at the instant its acquire returned.
func overlaps(holds []hold, visit func(overlap)) {
	cur := -1 // the earlier hold that ends last
	for i, hd := range holds {
		if cur >= 0 && hd.start < holds[cur].end && holds[cur].start < hd.end {
			visit(overlap{earlier: holds[cur], later: hd})
		}
		if cur < 0 || hd.end > holds[cur].end {
			cur = i
		}
	}
}

// describeOverlap renders an overlap as one sentence, e.g. "c2 acquired
// lock /jobs at 3.412s while c1 held it since 2.980s; c1 released at
// 4.101s".
func describeOverlap(h *History, p pairKinds, key string, o overlap) (string, []*Operation) {
	ops := []*Operation{&h.Ops[o.earlier.take], &h.Ops[o.later.take]}
	msg := sprintf("%s %s %s %s at %s while %s %s since %s; ",
		o.later.client, p.took, p.noun, key, fmtTime(o.later.start),
		o.earlier.client, p.holding, fmtTime(o.earlier.start))
	switch {
	case o.earlier.give < 0:
		msg += sprintf("%s never %s", o.earlier.client, p.gave)
	case h.Ops[o.earlier.give].Kind == KindCrash:
		msg += sprintf("%s crashed at %s", o.earlier.client, fmtTime(o.earlier.end))
		ops = append(ops, &h.Ops[o.earlier.give])
	default:
		msg += sprintf("%s %s at %s", o.earlier.client, p.gave, fmtTime(o.earlier.end))
		ops = append(ops, &h.Ops[o.earlier.give])
	}
	return msg + heldPastExpiry(h, p, o.earlier), ops
}

// heldPastExpiry says, when the faults prove it, that the holder of hd went
// on holding after its lease had expired on the server, by how much, and
// why; "" otherwise. E.g. "; c2 went on leading for 2.101s after its lease
// 542fa20cc928df02 had expired on the server (by 1.018s: ...); a recipe
// that stops on concurrency.Session.Done ...".
func heldPastExpiry(h *History, p pairKinds, hd hold) string {
	e, ok := leaseExpiry(h, hd.client, hd.take, hd.end)
	if !ok || hd.give >= 0 && h.Ops[hd.give].Kind == KindCrash {
		return ""
	}
	verb := "holding it"
	if p.take == KindCampaign {
		verb = "leading"
	}
	how := "to the end of the run"
	if hd.end < Infinity {
		how = "for " + fmtDur(hd.end-e.at)
	}
	msg := sprintf("; %s went on %s %s after %s", hd.client, verb, how, e.since(hd.client))
	// A lock holder paused when its lease expired could not let go until
	// the pause ended. An election's term ends, in the history, when the
	// recipe's Done closes, paused or not: a late end is the recipe's.
	if p.take == KindAcquire && e.pausedThrough(e.at) {
		return msg + sprintf("; %s was paused until %s and could not let go: %s",
			hd.client, fmtTime(e.fault.End), pausedFix)
	}
	if p.take == KindCampaign && (hd.give < 0 || h.Ops[hd.give].Input.Value == ResignAsked) {
		return msg + "; " + neverSignalled
	}
	if p.take == KindAcquire {
		return msg + "; " + lockSignal(h, hd, e)
	}
	return msg + "; " + lateDone
}
