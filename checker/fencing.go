package checker

import (
	"cmp"
	"slices"
)

// FencingOptions configures Fencing. The zero value keeps 20 violations.
type FencingOptions struct {
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// Fencing checks fencing tokens, per lock name Key.
//
// It reads:
//   - guarded-write with Input.Token > 0 (the token the writer presented):
//     outcome ok means the resource accepted it, failed that it rejected it,
//     unknown is left out. Of two accepted writes where one returned before
//     the other was called, the later must carry a larger token, or the same
//     token from the same client (a holder may write several times). A
//     rejected write whose token is below one already accepted is counted
//     as a stale write rejected (Metrics["stale_rejected"]); any other
//     rejection as Metrics["fresh_rejected"].
//   - acquire with outcome ok and Output.Token > 0: of two acquires where
//     one returned before the other was called, the later must hand out the
//     larger token.
//
// A guarded-write with token 0 is unfenced: its lock hands out no token
// (a lock.Held whose Token is 0), so there is nothing to check it by. It
// is left out and counted (Metrics["unfenced"], when there are any); when every guarded write
// is unfenced the verdict is unknown, and the summary says why.
//
// Invalid: a guarded-write without a lock name or with a negative token,
// and whatever History.Validate rejects. With no guarded write accepted or
// rejected the verdict is unknown.
func Fencing(h History, opts FencingOptions) Result {
	rep := newReport(CheckerFencing, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != KindGuardedWrite {
			continue
		}
		if op.Key == "" {
			return rep.invalid(invalidOp(op, "guarded-write without a lock name"))
		}
		if op.Input.Token < 0 {
			return rep.invalid(invalidOp(op, "guarded-write with a negative fencing token"))
		}
	}
	keys, groups := groupByKey(&h, KindGuardedWrite)
	unfenced := 0
	keys = slices.DeleteFunc(keys, func(k string) bool {
		n := len(groups[k])
		groups[k] = slices.DeleteFunc(groups[k], func(i int) bool { return h.Ops[i].Input.Token == 0 })
		unfenced += n - len(groups[k])
		return len(groups[k]) == 0
	})
	var accepted, stale, fresh, unknown int
	for _, k := range keys {
		a, s, f, u := fenceWrites(&h, k, groups[k], rep)
		accepted, stale, fresh, unknown = accepted+a, stale+s, fresh+f, unknown+u
	}
	lockKeys, lockGroups := groupByKey(&h, KindAcquire)
	tokens := 0
	for _, k := range lockKeys {
		tokens += fenceAcquires(&h, k, lockGroups[k], rep)
	}
	m := rep.res.Metrics
	m["accepted"] = float64(accepted)
	m["stale_rejected"] = float64(stale)
	m["fresh_rejected"] = float64(fresh)
	m["unknown"] = float64(unknown)
	m["acquire_tokens"] = float64(tokens)
	if unfenced > 0 {
		m["unfenced"] = float64(unfenced)
	}
	summary := sprintf("%s accepted, %s rejected, %d unknown, over %s",
		plural(accepted, "guarded write"), plural(stale, "stale write"), unknown, plural(len(keys), "resource"))
	if fresh > 0 {
		summary += sprintf("; %d writes with a current token were rejected too", fresh)
	}
	if unfenced > 0 {
		summary += sprintf("; %s without a token left out", plural(unfenced, "guarded write"))
	}
	undecided := ""
	switch {
	case len(keys) == 0 && unfenced > 0:
		undecided = "no guarded write carried a fencing token: the lock hands out none (its holders' Token is 0)"
	case len(keys) == 0:
		undecided = "no guarded writes"
	case accepted+stale+fresh == 0:
		undecided = "no guarded write was accepted or rejected"
	}
	return rep.done(summary, undecided)
}

// sweep visits ops (indices) in call order, each together with the op of
// largest token among those that returned strictly before its call (-1 if
// none). token and keep select and weigh the ops that count as returned.
func sweep(h *History, ops []int, keep func(*Operation) bool, token func(*Operation) int64, visit func(i, best int)) {
	byReturn := slices.Clone(ops)
	byReturn = slices.DeleteFunc(byReturn, func(i int) bool { return !keep(&h.Ops[i]) })
	slices.SortFunc(byReturn, func(a, b int) int {
		return cmp.Or(cmp.Compare(h.Ops[a].Return, h.Ops[b].Return), cmp.Compare(a, b))
	})
	best, j := -1, 0
	for _, i := range ops { // ops are in call order
		for j < len(byReturn) && h.Ops[byReturn[j]].Return < h.Ops[i].Call {
			r := byReturn[j]
			if best < 0 || token(&h.Ops[r]) > token(&h.Ops[best]) {
				best = r
			}
			j++
		}
		visit(i, best)
	}
}

func fenceWrites(h *History, key string, ops []int, rep *report) (accepted, stale, fresh, unknown int) {
	isAccepted := func(op *Operation) bool { return op.Outcome == OutcomeOK }
	tok := func(op *Operation) int64 { return op.Input.Token }
	sweep(h, ops, isAccepted, tok, func(i, best int) {
		w := &h.Ops[i]
		var b *Operation
		if best >= 0 {
			b = &h.Ops[best]
		}
		switch w.Outcome {
		case OutcomeUnknown:
			unknown++
		case OutcomeFailed:
			if b != nil && w.Input.Token < b.Input.Token {
				stale++
			} else {
				fresh++
			}
		case OutcomeOK:
			accepted++
			if b == nil {
				return
			}
			if w.Input.Token < b.Input.Token || (w.Input.Token == b.Input.Token && w.Client != b.Client) {
				rep.violation(ViolationStaleAccepted, []*Operation{b, w},
					"resource %s accepted %s's write with token %d at %s after accepting %s's write with token %d at %s",
					key, w.Client, w.Input.Token, fmtTime(w.Call), b.Client, b.Input.Token, fmtTime(b.Return))
			}
		}
	})
	return accepted, stale, fresh, unknown
}

func fenceAcquires(h *History, key string, ops []int, rep *report) int {
	granted := func(op *Operation) bool { return op.Outcome == OutcomeOK && op.Output.Token > 0 }
	tok := func(op *Operation) int64 { return op.Output.Token }
	n := 0
	sweep(h, ops, granted, tok, func(i, best int) {
		a := &h.Ops[i]
		if !granted(a) {
			return
		}
		n++
		if best >= 0 && a.Output.Token <= h.Ops[best].Output.Token {
			b := &h.Ops[best]
			rep.violation(ViolationTokenRegression, []*Operation{b, a},
				"lock %s granted token %d to %s at %s after granting token %d to %s at %s",
				key, a.Output.Token, a.Client, fmtTime(a.Return), b.Output.Token, b.Client, fmtTime(b.Return))
		}
	})
	return n
}
