package checker

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// KeysOnLeasesOptions configures KeysOnLeases. The zero value takes the
// TTL the recipe's leases were granted and allows 2 TTLs + 3 s past it.
type KeysOnLeasesOptions struct {
	// TTL is the recipe's lease TTL. 0 means the largest TTL its leases
	// were granted (ObservedTTLs), else History.SessionTTL, else 60 s.
	TTL time.Duration
	// Bound is how long past the TTL a lease whose process ended may
	// still be held. 0 means 2 TTLs + 3 s: etcd expires a lease on its
	// leader's clock, and a new leader renews every lease.
	Bound time.Duration
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// KeysOnLeases checks that every key a recipe writes can go away without
// its writer: that it is on a lease, a live one, and that it does go when
// the process that kept the lease is gone. A key on no lease stays in etcd
// until someone deletes it; a holder, leader or registrar that dies first
// leaves it for ever, in every waiter's way (hashicorp/vault #2526; a
// registry with "2 live pods, 4+ keys", go-zero PR #5545).
//
// It reads, as the clients' connections recorded them whatever code made
// the call:
//   - put (KindPut) with outcome ok: Client wrote Key on Output.Lease;
//     keys under History.WorkloadKeys are the workload's, not the
//     recipe's, and are not judged;
//   - lease-grant with outcome ok: the lease's TTL; revoke with outcome
//     ok, and revoke-lease faults (as RevokedLease reads them): when a
//     lease was gone;
//   - crash: the process ended at its call;
//   - History.Final: what etcd held when the run ended;
//   - History.Faults: a fault that may move etcd's leadership renews
//     every lease, so a lease's expiry is counted from its end.
//
// The violations:
//   - key-on-no-lease: a recipe key written on no lease, once per key,
//     with the first such write and how many more there were; said to
//     have stayed when History.Final still holds it after its writer
//     crashed;
//   - key-on-dead-lease: a write that returned ok on a lease already
//     revoked when the write was called;
//   - key-outlived-writer: a key History.Final still holds on the lease it
//     was written on, with that lease alive, more than TTL + Bound after
//     the writer's process crashed (counting from the end of the last
//     fault that may have renewed it) and with no later call from that
//     process.
//
// Invalid: whatever History.Validate rejects. With no put recorded the
// verdict is unknown: the history does not say what the recipe wrote (it
// is older than version 7, or its clients' connections were not
// watched).
func KeysOnLeases(h History, opts KeysOnLeasesOptions) Result {
	rep := newReport(CheckerKeysOnLeases, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	ttl := cmp.Or(opts.TTL, judgedTTL(h, 0), h.SessionTTL, 60*time.Second)
	bound := cmp.Or(opts.Bound, keysOnLeasesBound(ttl))
	rk := newRecipeKeys(&h)
	revoked := revocations(&h)

	puts, recipeAll, recipePuts, foreign := 0, 0, 0, map[string]bool{}
	written := map[string]bool{} // of the keys etcd held at the end, those a put was recorded for, whatever its outcome
	if h.Final != nil {
		for _, fk := range h.Final.Keys {
			written[fk.Key] = false
		}
	}
	noLease := map[string][]*Operation{} // per key, its writes on no lease
	crashes := map[string][]*Operation{} // per process, its crashes
	for i := range h.Ops {
		if op := &h.Ops[i]; op.Kind == KindCrash {
			crashes[processOf(op.Client)] = append(crashes[processOf(op.Client)], op)
		}
	}
	for i := range h.Calls {
		op := &h.Calls[i]
		if op.Kind != KindPut {
			continue
		}
		puts++
		if _, ok := written[op.Key]; ok {
			written[op.Key] = true
		}
		if !rk.has(op.Key) {
			foreign[op.Key] = true
			continue
		}
		recipeAll++
		if op.Outcome == OutcomeFailed {
			continue
		}
		recipePuts++
		if op.Outcome != OutcomeOK {
			continue
		}
		if op.Output.Lease == 0 {
			noLease[op.Key] = append(noLease[op.Key], op)
			continue
		}
		if r, ok := revoked[op.Output.Lease]; ok && r.done < op.Call {
			rep.violation(ViolationKeyOnDeadLease, []*Operation{r.op, op}, "%s", deadLeaseSentence(op, r))
		}
	}

	// Per key the end state holds or that was written on no lease, its
	// latest write that may have taken effect; per crashed process, its
	// latest call.
	wanted := map[string]bool{}
	for k := range noLease {
		wanted[k] = true
	}
	if h.Final.Complete() {
		for _, fk := range h.Final.Keys {
			wanted[fk.Key] = true
		}
	}
	lastPut := map[string]*Operation{}
	lastCall := map[string]time.Duration{}
	for _, ops := range [][]Operation{h.Ops, h.Calls} {
		for i := range ops {
			op := &ops[i]
			if len(crashes) > 0 {
				if process := processOf(op.Client); crashes[process] != nil {
					lastCall[process] = max(lastCall[process], op.Call)
				}
			}
			if op.Kind == KindPut && op.Outcome != OutcomeFailed && wanted[op.Key] {
				if p := lastPut[op.Key]; p == nil || op.Call >= p.Call {
					lastPut[op.Key] = op
				}
			}
		}
	}

	for _, key := range slices.Sorted(maps.Keys(noLease)) {
		ws := noLease[key]
		first := ws[0]
		var b strings.Builder
		fmt.Fprintf(&b, "%s wrote recipe key %s on no lease (op %d at %s", processOf(first.Client), key, first.ID, fmtTime(first.Call))
		if len(ws) > 1 {
			fmt.Fprintf(&b, ", and %s more", plural(len(ws)-1, "write"))
		}
		b.WriteString("): etcd keeps a key on no lease until someone deletes it, so a writer that dies or is cut off for good leaves it for ever, in the way of every later caller; put it on the writer's session lease (clientv3.WithLease)")
		if fk, ok := h.Final.Key(key); ok && fk.Lease == 0 {
			if c := crashAfter(crashes[processOf(lastPut[key].Client)], lastPut[key].Call); c != nil {
				fmt.Fprintf(&b, "; it was still in etcd when the run ended at %s, %v after its writer %s crashed at %s",
					fmtTime(h.Final.At), h.Final.At-c.Call, processOf(c.Client), fmtTime(c.Call))
			} else {
				fmt.Fprintf(&b, "; it was still in etcd, on no lease, when the run ended at %s", fmtTime(h.Final.At))
			}
		}
		rep.violation(ViolationKeyOnNoLease, []*Operation{first}, "%s", b.String())
	}

	outlived := 0
	if h.Final.Complete() && len(h.Final.Keys) > 0 {
		g := grants(&h)
		for _, fk := range h.Final.Keys {
			w := lastPut[fk.Key]
			if fk.Lease == 0 || w == nil || w.Output.Lease != fk.Lease {
				continue
			}
			fl, alive := h.Final.Lease(fk.Lease)
			if !alive {
				continue
			}
			process := processOf(w.Client)
			c := crashAfter(crashes[process], w.Call)
			if c == nil || lastCall[process] > c.Call {
				continue // its process never ended, or came back and may keep the lease
			}
			from := max(c.Call, renewedBy(&h, c.Call))
			leaseTTL := ttl
			if gr := g[fk.Lease]; gr != nil && gr.Output.TTL > 0 {
				leaseTTL = gr.Output.TTL
			}
			if h.Final.At <= addTime(from, leaseTTL+bound) {
				continue
			}
			outlived++
			rep.violation(ViolationKeyOutlivedWriter, []*Operation{g[fk.Lease], w, c},
				"%s wrote recipe key %s on lease %x (op %d at %s), and the key was still in etcd when the run ended at %s, %v after %s crashed at %s: "+
					"the lease, granted for %v, should have expired by %s, yet etcd still held it with %v left — something kept renewing a lease whose process was gone",
				process, fk.Key, fk.Lease, w.ID, fmtTime(w.Call), fmtTime(h.Final.At), h.Final.At-c.Call, process, fmtTime(c.Call),
				leaseTTL, fmtTime(addTime(from, leaseTTL)), fl.Remaining)
		}
	}

	rep.res.Metrics["puts"] = float64(puts)
	rep.res.Metrics["recipe-puts"] = float64(recipePuts)
	rep.res.Metrics["keys-on-no-lease"] = float64(len(noLease))
	rep.res.Metrics["keys-outlived"] = float64(outlived)
	summary := sprintf("%s by the recipe that may have taken effect, %s on no lease", plural(recipePuts, "key write"), plural(len(noLease), "key"))
	if len(foreign) > 0 {
		summary += sprintf("; %s written under the workload's own prefixes, not judged", plural(len(foreign), "key"))
	}
	if others := unwrittenKeys(&h, written); len(others) > 0 && puts > 0 {
		summary += "; " + others
	}
	switch {
	case h.Final == nil:
		summary += "; the end state was not recorded, so no key was checked for outliving its writer"
	case !h.Final.Complete():
		summary += "; the end state was read only in part (" + h.Final.Err + "), so no key was checked for outliving its writer"
	}
	undecided := ""
	switch {
	case puts == 0:
		undecided = "no key write was recorded, so nothing says what the recipe wrote or on which lease"
	case recipeAll == 0:
		undecided = "no key write of the recipe was recorded, only the workload's, so nothing says what the recipe wrote or on which lease"
	}
	return rep.done(summary, undecided)
}

// crashAfter returns the first of crashes called at or after t, nil if
// none.
func crashAfter(crashes []*Operation, t time.Duration) *Operation {
	for _, c := range crashes {
		if c.Call >= t {
			return c
		}
	}
	return nil
}

// renewedBy returns the latest end, after t, of a fault that may have moved
// etcd's leadership, and so renewed every lease; 0 if none.
func renewedBy(h *History, t time.Duration) time.Duration {
	var last time.Duration
	for _, f := range h.Faults {
		if slices.Contains(leaseNeutral, f.Action) || f.NotApplicable != "" {
			continue
		}
		end := f.End
		if !f.Healed {
			end = h.lastTime()
		}
		if end > t {
			last = max(last, end)
		}
	}
	return last
}

// deadLeaseSentence says that op wrote on a lease gone before it.
func deadLeaseSentence(op *Operation, r revocation) string {
	by := "a revoke"
	if r.op != nil {
		by = fmt.Sprintf("op %d (%s revoke)", r.op.ID, r.op.Client)
	} else if r.fault != nil {
		by = "fault " + r.fault.Name
	}
	return fmt.Sprintf("%s wrote recipe key %s on lease %x (op %d at %s), which %s had revoked by %s: etcd refuses a write on a lease it no longer holds, "+
		"so the write cannot have been on that lease as recorded", processOf(op.Client), op.Key, op.Output.Lease, op.ID, fmtTime(op.Call), by, fmtTime(r.done))
}

// maxUnwritten caps the keys unwrittenKeys names.
const maxUnwritten = 3

// unwrittenKeys says which keys etcd held at the run's end that no put of
// the run's clients wrote (written, every key a put was recorded for):
// keys written by something other than the recipe — another program,
// a client whose connection was not watched, a fault — or before the
// recording began, which are not judged; "" if none.
func unwrittenKeys(h *History, written map[string]bool) string {
	if h.Final == nil {
		return ""
	}
	var keys []string
	for _, fk := range h.Final.Keys {
		if !written[fk.Key] {
			keys = append(keys, fk.Key)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	names := keys[:min(len(keys), maxUnwritten)]
	more := ""
	if len(keys) > maxUnwritten {
		more = sprintf(" and %d more", len(keys)-maxUnwritten)
	}
	was, it := "were", "them"
	if len(keys) == 1 {
		was, it = "was", "it"
	}
	return sprintf("%s etcd held at the end (%s%s) %s written by none of the recipe's clients as their connections recorded it: "+
		"something other than the recipe wrote %s (another program, a client the harness does not watch, a fault), or wrote %s before the run's recording began; not judged",
		plural(len(keys), "key"), strings.Join(names, ", "), more, was, it, it)
}
