package checker

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// RevokedLeaseOptions configures RevokedLease. The zero value keeps 20
// violations.
type RevokedLeaseOptions struct {
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// leaseActs are the operations by which a client acts on its belief that
// it still holds what its lease stands for: it changes the state the lease
// guards.
var leaseActs = []Kind{KindGuardedWrite, KindCounterIncr, KindSetAdd, KindWrite, KindCAS, KindDelete, KindTxn}

// leaseTakes are the operations whose Output.Lease names the session
// lease of their client, as the faults find it: a revoke-lease fault aimed
// at a client revokes the lease of its latest one.
var leaseTakes = []Kind{KindAcquire, KindCampaign, KindRegister, KindRLock, KindSession}

// revocation is when a lease was known gone: a revoke that had returned.
type revocation struct {
	done  time.Duration // the revoke had returned by then
	rev   int64         // the revoke's header revision, 0 if not recorded
	op    *Operation    // the revoke operation; nil for a fault
	fault *FaultEvent   // the revoke-lease fault; nil for an operation
}

// RevokedLease checks that no client acts on a keep-alive answer it took
// after its lease had been revoked. clientv3's KeepAlive delivers answers
// on a buffered channel: answers that arrived before a Revoke may still be
// taken off it after the Revoke returned, each saying the lease is alive
// with a TTL (etcd #21638; etcd documents it since, and asks callers to
// read until the channel closes). A client that takes such an answer as
// proof that it still holds its lock or leadership, and writes, acts on a
// lease the cluster has deleted, and on keys another client may own by
// now.
//
// It reads:
//   - keepalive operations with outcome ok: Output.Lease, Output.TTL and
//     Output.Header (KindKeepAlive);
//   - revoke operations with outcome ok, by any client: Output.Lease and
//     Output.Revision (KindRevoke);
//   - revoke-lease faults that were applied without error: each revoked the
//     lease of its target's latest acquire, campaign, registration, read
//     lock or session (Output.Lease), and had done so by the fault's end;
//   - the acts: guarded-write, counter-incr, set-add, write, cas, delete
//     and txn, and crashes.
//
// A violation is a keepalive answer with a TTL above 0, taken by a client
// that began to take it only after a revoke of its lease had returned
// (strictly after: at the same instant of a virtual clock either may come
// first),
// followed by an act of the same client called after the answer and
// before it took its next answer about the lease (or crashed). Taking the
// answer is no violation by itself: reading on until the channel closes
// is what etcd asks. The violation names the revoke, the answer and the
// first act.
//
// Invalid: whatever History.Validate rejects, and a keepalive or revoke
// with outcome ok without Output.Lease. With no keepalive answer recorded the verdict is
// unknown: the history says nothing about what the clients took for proof.
func RevokedLease(h History, opts RevokedLeaseOptions) Result {
	rep := newReport(CheckerRevokedLease, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	for _, ops := range [][]Operation{h.Ops, h.Calls} {
		for i := range ops {
			op := &ops[i]
			if (op.Kind == KindKeepAlive || op.Kind == KindRevoke) && op.Outcome == OutcomeOK && op.Output.Lease == 0 {
				return rep.invalid(invalidOp(op, "a %s must name its lease in Output.Lease", op.Kind))
			}
		}
	}
	revoked := revocations(&h)
	// Per client, its keepalives, acts and crashes, in the order called.
	byClient := map[string][]*Operation{}
	answers := 0
	for i := range h.Ops {
		op := &h.Ops[i]
		switch {
		case op.Kind == KindKeepAlive && op.Outcome == OutcomeOK:
			answers++
		case op.Kind == KindCrash || slices.Contains(leaseActs, op.Kind):
		default:
			continue
		}
		byClient[op.Client] = append(byClient[op.Client], op)
	}
	stale := 0
	for _, c := range slices.Sorted(maps.Keys(byClient)) {
		ops := byClient[c]
		slices.SortStableFunc(ops, func(a, b *Operation) int {
			return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.ID, b.ID))
		})
		for i, ka := range ops {
			if ka.Kind != KindKeepAlive || ka.Outcome != OutcomeOK || ka.Output.TTL <= 0 {
				continue
			}
			r, ok := revoked[ka.Output.Lease]
			if !ok || ka.Call <= r.done {
				continue
			}
			stale++
			if act := actOn(ops[i+1:], ka); act != nil {
				rep.violation(ViolationActedAfterRevoke, []*Operation{r.op, ka, act}, "%s", actedSentence(ka, act, r))
			}
		}
	}
	rep.res.Metrics["keepalives"] = float64(answers)
	rep.res.Metrics["revoked-leases"] = float64(len(revoked))
	rep.res.Metrics["answers-after-revoke"] = float64(stale)
	summary := sprintf("%s, %s revoked, %s taken after its revoke",
		plural(answers, "keep-alive answer"), plural(len(revoked), "lease"), plural(stale, "answer"))
	undecided := ""
	if answers == 0 {
		undecided = "no keep-alive answer was recorded, so nothing says what the clients took for proof that their leases lived"
	}
	return rep.done(summary, undecided)
}

// actOn returns the first act among rest (the client's later operations,
// in call order) called after ka returned and before the client took its
// next answer about ka's lease or crashed; nil if there is none.
func actOn(rest []*Operation, ka *Operation) *Operation {
	for _, op := range rest {
		switch {
		case op.Call < ka.Return:
			continue // under way while the answer was taken: not acting on it
		case op.Kind == KindCrash:
			return nil
		case op.Kind == KindKeepAlive && op.Output.Lease == ka.Output.Lease:
			return nil // a newer answer: what it acts on from now is that one's business
		case slices.Contains(leaseActs, op.Kind):
			return op
		}
	}
	return nil
}

// actedSentence says what the client did, and what it should have done.
func actedSentence(ka, act *Operation, r revocation) string {
	by := "a revoke"
	if r.op != nil {
		by = fmt.Sprintf("op %d (%s revoke)", r.op.ID, r.op.Client)
	} else if r.fault != nil {
		by = "fault " + r.fault.Name
	}
	why := "an answer that arrived before the revoke and waited on the keep-alive channel"
	if r.rev != 0 && ka.Output.Header != 0 && ka.Output.Header < r.rev {
		why = fmt.Sprintf("its header revision %d is below the revoke's %d: it was answered before the revoke and waited on the keep-alive channel", ka.Output.Header, r.rev)
	}
	return fmt.Sprintf("%s acted on lease %x after it was revoked: %s had revoked it by %s, op %d (keepalive from %s) then took an answer saying it was alive for %v (%s), "+
		"and op %d (%s %s at %s) acted on it; a keep-alive answer taken off the channel after a revoke proves nothing: "+
		"read the channel until it closes, or ask with KeepAliveOnce (sent after the revoke, it finds the lease gone), before acting",
		ka.Client, ka.Output.Lease, by, fmtTime(r.done), ka.ID, fmtTime(ka.Call), ka.Output.TTL, why,
		act.ID, act.Kind, act.Key, fmtTime(act.Call))
}

// revocations returns, per lease, its earliest known revocation: revoke
// operations that returned ok, and revoke-lease faults applied without
// error, each taken as done when it ended.
func revocations(h *History) map[int64]revocation {
	out := map[int64]revocation{}
	note := func(lease int64, r revocation) {
		if old, ok := out[lease]; !ok || r.done < old.done {
			out[lease] = r
		}
	}
	for i := range h.Calls {
		op := &h.Calls[i]
		if op.Kind == KindRevoke && op.Outcome == OutcomeOK {
			note(op.Output.Lease, revocation{done: op.Return, rev: op.Output.Revision, op: op})
		}
	}
	for i := range h.Faults {
		f := &h.Faults[i]
		if f.Action != "revoke-lease" || !f.Healed || f.Err != "" || f.NotApplicable != "" {
			continue
		}
		for _, c := range f.Targets {
			if lease := sessionLeaseAt(h, c, f.Start); lease != 0 {
				note(lease, revocation{done: f.End, fault: f})
			}
		}
	}
	return out
}

// sessionLeaseAt returns the lease of client's latest take that returned
// by t, as a revoke-lease fault fired at t found it; 0 if none.
func sessionLeaseAt(h *History, client string, t time.Duration) int64 {
	var lease int64
	var last time.Duration = -1
	for i := range h.Ops {
		op := &h.Ops[i]
		if process, _, _ := strings.Cut(op.Client, "/"); process != client && op.Client != client {
			continue
		}
		if op.Outcome != OutcomeOK || op.Output.Lease == 0 || op.Return > t || !slices.Contains(leaseTakes, op.Kind) {
			continue
		}
		if op.Return >= last {
			lease, last = op.Output.Lease, op.Return
		}
	}
	return lease
}
