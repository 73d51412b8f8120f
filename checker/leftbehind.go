package checker

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// LeftBehindOptions configures LeftBehind. The zero value takes the TTL
// from the history and allows 2 s past it.
type LeftBehindOptions struct {
	// TTL is the backends' lease TTL: a key its registrar no longer keeps
	// alive leaves etcd within it. 0 means History.SessionTTL, or 60 s if
	// that is 0 too.
	TTL time.Duration
	// Bound is how long past the TTL a key may still be listed. 0 means
	// 2 s.
	Bound time.Duration
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// abandonment is when a registrar stopped keeping one of its keys.
type abandonment struct {
	at  time.Duration
	why *Operation // the registration under another key, deregister or crash
}

// LeftBehind checks that no registration is left behind under a key its
// registrar no longer keeps. A registrar that registers its instance again
// under a new key — a new lease in the key's name, a new instance id — and
// does not remove the old key, or goes on renewing the old key's lease,
// leaves a second record of the instance in the registry: resolvers count
// it twice, and when the instance moves or stops, the old record still
// sends callers to it.
//
// It reads:
//   - register with outcome ok (Client, the registrar; Output.Key, the
//     etcd key it registered under — a register without it is skipped):
//     from its return the registrar keeps that key, and no longer keeps
//     every other key it registered under before;
//   - deregister with outcome ok, and crash: from its return (a crash's
//     call) the registrar keeps none of its keys;
//   - list with outcome ok (Key, the prefix listed; Output.Values, the
//     keys it found): the registry as an observer saw it;
//   - History.Faults: a fault may keep a lease alive past its TTL (a new
//     etcd leader renews every lease), so a listing is judged only when no
//     fault is in force at its call, counting from the last heal before it.
//
// A violation is a listing, begun more than TTL + Bound after both the
// moment a registrar stopped keeping a key and the last heal, that still
// finds the key, which no registrar has registered under again since. Each
// key is reported once, with the listing that first proves it.
//
// Invalid: whatever History.Validate rejects. With no listing, or no
// register that names its key, the verdict is unknown.
func LeftBehind(h History, opts LeftBehindOptions) Result {
	rep := newReport(CheckerLeftBehind, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	ttl, _ := LivenessOptions{TTL: opts.TTL}.resolve(&h)
	bound := cmp.Or(opts.Bound, leftBehindBound(ttl))
	// The events in the order they took effect: registers, deregisters
	// and crashes at their returns (a crash at its call), listings at
	// their calls.
	type event struct {
		at time.Duration
		op *Operation
	}
	var evs []event
	keyed, listings := 0, 0
	for i := range h.Ops {
		op := &h.Ops[i]
		switch {
		case op.Kind == KindCrash:
			evs = append(evs, event{op.Call, op})
		case op.Outcome != OutcomeOK:
		case op.Kind == KindRegister && op.Output.Key != "":
			keyed++
			evs = append(evs, event{op.Return, op})
		case op.Kind == KindDeregister:
			evs = append(evs, event{op.Return, op})
		case op.Kind == KindList:
			listings++
			evs = append(evs, event{op.Call, op})
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.op.ID, b.op.ID)) })
	keeps := map[string]map[string]bool{} // registrar → keys it keeps now
	kept := map[string]string{}           // key → the registrar that keeps it
	left := map[string]abandonment{}      // key → when its registrar stopped keeping it
	reported := map[string]bool{}
	drop := func(who string, at time.Duration, why *Operation, except string) {
		for k := range keeps[who] {
			if k == except {
				continue
			}
			delete(keeps[who], k)
			delete(kept, k)
			left[k] = abandonment{at: at, why: why}
		}
	}
	for _, e := range evs {
		op := e.op
		switch op.Kind {
		case KindRegister:
			drop(op.Client, e.at, op, op.Output.Key)
			if keeps[op.Client] == nil {
				keeps[op.Client] = map[string]bool{}
			}
			keeps[op.Client][op.Output.Key] = true
			kept[op.Output.Key] = op.Client
			delete(left, op.Output.Key)
		case KindDeregister, KindCrash:
			drop(op.Client, e.at, op, "")
		case KindList:
			healed, inForce := lastHeal(&h, op.Call)
			if inForce {
				continue
			}
			for _, k := range op.Output.Values {
				a, ok := left[k]
				if !ok || reported[k] || op.Call <= max(a.at, healed)+ttl+bound {
					continue
				}
				reported[k] = true
				rep.violation(ViolationLeftBehind, []*Operation{a.why, op}, "%s", leftSentence(k, a, op, ttl, bound))
			}
		}
	}
	rep.res.Metrics["registrations"] = float64(keyed)
	rep.res.Metrics["listings"] = float64(listings)
	rep.res.Metrics["keys-let-go"] = float64(len(left))
	summary := sprintf("%s under a named key, %s", plural(keyed, "registration"), plural(listings, "listing"))
	undecided := ""
	switch {
	case keyed == 0:
		undecided = "no registration recorded the key it was written under (Output.Key)"
	case listings == 0:
		undecided = "no listing of the registry was recorded, so nothing shows which keys stayed"
	}
	return rep.done(summary, undecided)
}

// lastHeal returns the latest end of a fault that started before t, and
// whether some fault was still in force at t.
func lastHeal(h *History, t time.Duration) (time.Duration, bool) {
	var last time.Duration
	for i := range h.Faults {
		f := &h.Faults[i]
		if f.Start > t || f.NotApplicable != "" {
			continue
		}
		if !f.Healed {
			if f.InForce() {
				return 0, true
			}
			continue
		}
		if f.End > t {
			return 0, true
		}
		last = max(last, f.End)
	}
	return last, false
}

// leftSentence says which key was left behind, since when, and why that
// is a bug.
func leftSentence(key string, a abandonment, list *Operation, ttl, bound time.Duration) string {
	var why string
	switch a.why.Kind {
	case KindRegister:
		why = fmt.Sprintf("registered again under %s at %s (op %d)", a.why.Output.Key, fmtTime(a.at), a.why.ID)
	case KindDeregister:
		why = fmt.Sprintf("deregistered at %s (op %d)", fmtTime(a.at), a.why.ID)
	default:
		why = fmt.Sprintf("crashed at %s (op %d)", fmtTime(a.at), a.why.ID)
	}
	return fmt.Sprintf("%s was left behind: %s %s, yet op %d (%s's listing of %s at %s) still found it, more than the TTL (%v) and %v later; "+
		"a registrar that moves to a new key must delete the old one and stop renewing its lease (revoke it), or the registry "+
		"keeps a second record of the instance that outlives it",
		key, a.why.Client, why, list.ID, list.Client, list.Key, fmtTime(list.Call), ttl, bound)
}
