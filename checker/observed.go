package checker

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// This file reads from a history what the recipe did with leases and keys,
// as its clients' connections recorded it (lease-grant, put), rather than
// what the scenario assumed: the TTL its leases were granted, and which
// etcd keys are the recipe's.

// recipeKeys tells the etcd keys a recipe writes from those its workload
// writes beside it (a guarded resource, a counter): a key is the
// recipe's unless it lies under one of History.WorkloadKeys.
type recipeKeys []string

func newRecipeKeys(h *History) recipeKeys { return recipeKeys(h.WorkloadKeys) }

// has reports whether k is one of the recipe's keys.
func (rk recipeKeys) has(k string) bool {
	for _, p := range rk {
		if strings.HasPrefix(k, p) {
			return false
		}
	}
	return true
}

// grants returns, per lease, its grant that returned ok.
func grants(h *History) map[int64]*Operation {
	out := map[int64]*Operation{}
	for i := range h.Calls {
		op := &h.Calls[i]
		if op.Kind == KindLeaseGrant && op.Outcome == OutcomeOK && op.Output.Lease != 0 {
			out[op.Output.Lease] = op
		}
	}
	return out
}

// ObservedTTLs returns the TTLs the recipe's leases were granted, as its
// clients' connections recorded the grants, smallest first and each once:
// the leases its takes name (Output.Lease) and its keys are on; if none of
// those was seen granted, every lease its clients were granted. nil when
// the history records no grant (an older history, or a recipe run where
// its calls are not seen).
func ObservedTTLs(h History) []time.Duration {
	// One pass for the grants' TTLs; most runs grant every lease the
	// same, and then no lease need be told from another.
	var ttls []time.Duration
	for i := range h.Calls {
		op := &h.Calls[i]
		if op.Kind == KindLeaseGrant && op.Outcome == OutcomeOK && op.Output.Lease != 0 && !slices.Contains(ttls, op.Output.TTL) {
			ttls = append(ttls, op.Output.TTL)
		}
	}
	if len(ttls) <= 1 {
		return ttls
	}
	g := grants(&h)
	rk := newRecipeKeys(&h)
	used := map[int64]bool{}
	for _, ops := range [][]Operation{h.Ops, h.Calls} {
		for i := range ops {
			op := &ops[i]
			if op.Output.Lease == 0 || op.Outcome != OutcomeOK || g[op.Output.Lease] == nil {
				continue
			}
			if slices.Contains(leaseTakes, op.Kind) || (op.Kind == KindPut && rk.has(op.Key)) {
				used[op.Output.Lease] = true
			}
		}
	}
	if len(used) > 0 { // else the leases used were granted before the recording began: take every grant's
		ttls = ttls[:0]
		for id := range used {
			ttls = append(ttls, g[id].Output.TTL)
		}
	}
	slices.Sort(ttls)
	return slices.Compact(ttls)
}

// judgedTTL is the TTL a judge allows for: the largest the recipe was seen
// granted (so no lease is judged gone before its own TTL could have
// run out), else assumed (the scenario's).
func judgedTTL(h History, assumed time.Duration) time.Duration {
	if ttls := ObservedTTLs(h); len(ttls) > 0 {
		return ttls[len(ttls)-1]
	}
	return assumed
}

// withObservedTTL returns h and o as a TTL-dependent judge should read
// them: the TTL the recipe was granted in place of the one assumed.
func withObservedTTL(h History, o JudgeOptions) (History, JudgeOptions) {
	if ttls := ObservedTTLs(h); len(ttls) > 0 {
		o.TTL = ttls[len(ttls)-1]
		h.SessionTTL = o.TTL
	}
	return h, o
}

// TTLNote says, in one sentence, how the TTL the recipe's leases were
// granted differs from the TTL the scenario assumed, and which the judges
// took; "" when they agree or no grant was recorded. A run prints it once,
// whatever the number of judges or leases.
func TTLNote(h History, assumed time.Duration) string {
	ttls := ObservedTTLs(h)
	switch {
	case len(ttls) == 0, assumed == 0:
		return ""
	case len(ttls) == 1 && ttls[0] == assumed:
		return ""
	case len(ttls) == 1:
		return fmt.Sprintf("the recipe's leases were granted a TTL of %v, not the scenario's %v: the judges took %v, "+
			"and the schedule's times and its checks' own bounds were set for %v (simrun run -ttl %v, or the workload's observed_ttl, plays it at the recipe's)",
			ttls[0], assumed, ttls[0], assumed, ttls[0])
	}
	names := make([]string, len(ttls))
	for i, t := range ttls {
		names[i] = t.String()
	}
	return fmt.Sprintf("the recipe's leases were granted several TTLs (%s), and the scenario assumed %v: the judges took the largest, %v",
		strings.Join(names, ", "), assumed, ttls[len(ttls)-1])
}

// RecipeWrites counts the puts of recipe keys (not under
// History.WorkloadKeys) the history records, whatever their outcome: 0
// means nothing says what the recipe wrote, and KeysOnLeases is unknown.
func RecipeWrites(h History) int {
	rk := newRecipeKeys(&h)
	n := 0
	for i := range h.Calls {
		if op := &h.Calls[i]; op.Kind == KindPut && rk.has(op.Key) {
			n++
		}
	}
	return n
}

// withFaultsInForce ends each of res's violations with the faults that
// were in force at its instant — the latest call among its operations —
// that its sentence does not name already, so that every judge's finding
// says what the cluster was going through when it happened.
func withFaultsInForce(h *History, res Result) Result {
	if len(h.Faults) == 0 || len(res.Violations) == 0 {
		return res
	}
	for i := range res.Violations {
		v := &res.Violations[i]
		if len(v.Ops) == 0 {
			continue
		}
		var t time.Duration
		for _, op := range v.Ops {
			t = max(t, op.Call)
		}
		var names []string
		for _, f := range h.Faults {
			if f.NotApplicable != "" || (f.Err != "" && f.End == f.Start) || f.Start > t || (f.Healed && f.End <= t) {
				continue
			}
			if strings.Contains(v.Message, f.Name) {
				continue
			}
			names = append(names, fmt.Sprintf("%s (since %s)", f.Name, fmtTime(f.Start)))
		}
		if len(names) > 0 {
			v.Message += fmt.Sprintf("; in force at %s: %s", fmtTime(t), strings.Join(names, ", "))
		}
	}
	return res
}

// recipePut returns the latest put of a recipe key that client's process
// made between from and to that may have taken effect; nil if none.
func recipePut(h *History, client string, from, to time.Duration) *Operation {
	rk := newRecipeKeys(h)
	process := processOf(client)
	var last *Operation
	for i := range h.Calls {
		op := &h.Calls[i]
		if op.Kind != KindPut || op.Outcome == OutcomeFailed || op.Call < from || op.Call > to || processOf(op.Client) != process || !rk.has(op.Key) {
			continue
		}
		last = op
	}
	return last
}

// stillHeld says, when the end state shows etcd still held key k on no
// lease, so; "" otherwise.
func stillHeld(h *History, k string) string {
	if fk, ok := h.Final.Key(k); ok && fk.Lease == 0 {
		return sprintf(" (etcd still held it, on no lease, when the run ended at %s)", fmtTime(h.Final.At))
	}
	return ""
}
