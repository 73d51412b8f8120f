package checker

import (
	"cmp"
	"slices"
)

// RWOptions configures RWExclusion. The zero value keeps 20 violations.
type RWOptions struct {
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all. Metrics["violations"] counts them all.
	MaxViolations int
}

// readPair is the take/give protocol of a read lock.
var readPair = pairKinds{take: KindRLock, give: KindRUnlock,
	noun: "lock", took: "read-locked", gave: "read-unlocked", holding: "read-held it"}

// RWExclusion checks that read-write locks exclude: per lock name, no
// writer's hold overlaps another writer's or a reader's; readers may share.
//
// It reads, per Key, acquire and release (a writer's hold), rlock and
// runlock (a reader's), and crash, with the rules MutualExclusion applies
// to holds (see collectHolds): a hold runs from its take's return to its
// give's call or its client's crash; a failed give leaves it in place; a
// take of unknown outcome gives no hold. Holds that touch do not overlap.
//
// Invalid: what History.Validate rejects, and for either pair what
// MutualExclusion rejects (a give with no take, a take while holding...).
// With no hold at all the verdict is unknown.
func RWExclusion(h History, opts RWOptions) Result {
	rep := newReport(CheckerRWExclusion, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	writes, err := collectHolds(&h, lockPair)
	if err != nil {
		return rep.invalid(err)
	}
	reads, err := collectHolds(&h, readPair)
	if err != nil {
		return rep.invalid(err)
	}
	byKey := map[string]*rwKey{}
	var keys []string
	add := func(khs []keyHolds, writer bool) {
		for _, kh := range khs {
			k := byKey[kh.key]
			if k == nil {
				k = &rwKey{key: kh.key}
				byKey[kh.key] = k
				keys = append(keys, kh.key)
			}
			for _, hd := range kh.holds {
				k.holds = append(k.holds, rwHold{hold: hd, writer: writer})
			}
		}
	}
	add(writes, true)
	add(reads, false)
	slices.Sort(keys)
	nw, nr, overlapping := 0, 0, 0
	for _, key := range keys {
		k := byKey[key]
		for _, hd := range k.holds {
			if hd.writer {
				nw++
			} else {
				nr++
			}
		}
		k.conflicts(func(earlier, later rwHold) {
			overlapping++
			msg, ops := describeRWOverlap(&h, key, earlier, later)
			rep.violation(ViolationOverlap, ops, "%s", msg)
		})
	}
	m := rep.res.Metrics
	m["locks"] = float64(len(keys))
	m["write_holds"] = float64(nw)
	m["read_holds"] = float64(nr)
	m["overlapping_holds"] = float64(overlapping)
	summary := sprintf("%s and %s of %s", plural(nw, "write hold"), plural(nr, "read hold"), plural(len(keys), "lock"))
	undecided := ""
	if nw+nr == 0 {
		undecided = "no client ever held a read or write lock"
	}
	return rep.done(summary, undecided)
}

// rwHold is a hold of a read-write lock, a writer's or a reader's.
type rwHold struct {
	hold
	writer bool
}

// rwKey is one read-write lock's holds.
type rwKey struct {
	key   string
	holds []rwHold
}

// conflicts visits every hold that began while a conflicting one was in
// force: a writer's during any earlier hold, a reader's during an earlier
// writer's. Like overlaps, it compares each hold with the earlier one of
// each side that ends last, so it is O(n log n) and finds every hold that
// conflicts with some earlier one.
func (k *rwKey) conflicts(visit func(earlier, later rwHold)) {
	slices.SortFunc(k.holds, func(a, b rwHold) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end), cmp.Compare(a.take, b.take))
	})
	curW, curR := -1, -1 // the earlier writer's and reader's holds that end last
	clash := func(cur int, hd rwHold) bool {
		return cur >= 0 && hd.start < k.holds[cur].end && k.holds[cur].start < hd.end
	}
	for i, hd := range k.holds {
		switch {
		case clash(curW, hd):
			visit(k.holds[curW], hd)
		case hd.writer && clash(curR, hd):
			visit(k.holds[curR], hd)
		}
		if hd.writer && (curW < 0 || hd.end > k.holds[curW].end) {
			curW = i
		}
		if !hd.writer && (curR < 0 || hd.end > k.holds[curR].end) {
			curR = i
		}
	}
}

// describeRWOverlap renders a conflict as one sentence, e.g. "c2
// write-locked lock /jobs at 3.412s while c1 read-held it since 2.980s; c1
// read-unlocked at 4.101s".
func describeRWOverlap(h *History, key string, earlier, later rwHold) (string, []*Operation) {
	pe, pl := readPair, readPair
	if earlier.writer {
		pe = lockPair
	}
	if later.writer {
		pl = lockPair
	}
	took := "write-locked"
	if !later.writer {
		took = pl.took
	}
	holding := "write-held it"
	if !earlier.writer {
		holding = pe.holding
	}
	ops := []*Operation{&h.Ops[earlier.take], &h.Ops[later.take]}
	msg := sprintf("%s %s lock %s at %s while %s %s since %s; ",
		later.client, took, key, fmtTime(later.start), earlier.client, holding, fmtTime(earlier.start))
	switch {
	case earlier.give < 0:
		msg += sprintf("%s never let go", earlier.client)
	case h.Ops[earlier.give].Kind == KindCrash:
		msg += sprintf("%s crashed at %s", earlier.client, fmtTime(earlier.end))
		ops = append(ops, &h.Ops[earlier.give])
	default:
		msg += sprintf("%s let go at %s", earlier.client, fmtTime(earlier.end))
		ops = append(ops, &h.Ops[earlier.give])
	}
	return msg + heldPastExpiry(h, pe, earlier.hold), ops
}

// withReads adds to the holds of each lock those of its readers, for
// Liveness: a read-write lock is held while a writer or some reader holds
// it, and wanted while a writer or a reader waits. A lock only read gets
// an entry of its own. Keys stay sorted.
func withReads(h *History, locks, reads []keyHolds) []keyHolds {
	if len(reads) == 0 {
		return locks
	}
	at := map[string]int{}
	for i, kh := range locks {
		at[kh.key] = i
	}
	for _, rk := range reads {
		i, ok := at[rk.key]
		if !ok {
			locks = append(locks, keyHolds{key: rk.key})
			i = len(locks) - 1
			at[rk.key] = i
		}
		kh := &locks[i]
		kh.holds = append(kh.holds, rk.holds...)
		kh.ops = append(kh.ops, rk.ops...)
		sortByCall(h, kh.ops)
		kh.ops = slices.Compact(kh.ops) // a crash is in both lists
	}
	slices.SortFunc(locks, func(a, b keyHolds) int { return cmp.Compare(a.key, b.key) })
	return locks
}
