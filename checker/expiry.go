package checker

import (
	"slices"
	"strings"
	"time"
)

// This file works out, for the sentences of MutualExclusion and
// ElectionSafety, when a holder's session lease had expired on the server,
// from what a history records: the session TTL (History.SessionTTL), the
// lease of the holder's take (Output.Lease) and the faults aimed at the
// holder. A history records no lease renewals, so the time is a bound, and
// it is given only when the faults prove it:
//
//   - a revoke-lease aimed at the holder during its hold ended the lease at
//     the fault's start;
//   - a fault that cut the holder off from every member (pause, isolate,
//     partition or reset aimed at it) stops its keep-alives: no renewal
//     reaches the server after the cut begins, so the server expires the
//     lease by the cut's start plus the TTL — if the cut lasted that long,
//     and no fault that may move etcd's leadership (a new leader extends
//     every lease) was in force meanwhile.
//
// SessionTTL is taken as the TTL the server granted. etcd grants more than
// asked only below its minimum, 1.5 election timeouts, which the clusters of
// package cluster (100 ms elections by default) keep below a second.

// cutsOff are the fault actions that, aimed at a client, stop every one of
// its keep-alives from reaching the cluster.
var cutsOff = []string{"pause", "isolate", "partition", "reset"}

// leaseNeutral are the fault actions that cannot move etcd's leadership, and
// so cannot extend a lease the server is about to expire.
var leaseNeutral = []string{"pause", "reset", "lose-responses", "crash", "revoke-lease", "compact", "defrag"}

// lateDone names the pattern behind most holders that act after their lease
// expired, and the fix.
//
// The history does not say how the recipe learns of expiry, so the
// sentence speaks to both shapes: a recipe on concurrency.Session.Done,
// told what to use instead, and one already on a lease guard
// (lease), told where to look — a step of the hold that does not
// check the guard.
const lateDone = "whatever told it to stop came too late: if it stops on concurrency.Session.Done, that learns of expiry late, since clientv3's lessor " +
	"checks keep-alive deadlines about once a second, and a lease guard that keeps its own deadline from the grant " +
	"and renewal responses (lease) would stop it before the server can expire the lease; if it already holds such a guard, " +
	"a step of the hold went on without checking the guard's Done (or Deadline) first"

// neverSignalled is the fix for a leader whose recipe never closed Done:
// its term ended only when the workload resigned, or not at all.
const neverSignalled = "the recipe never signalled the loss: its Done had not closed when the workload ended the term itself; " +
	"a leadership must close Done once its lease can no longer be known to be alive — a lease guard of its own, " +
	"or the session's Done — or the library gives its caller no way to stop"

// neverSignalledLock is the fix for a lock holder whose recipe did not
// close Done while it held: the workload released the lock, at %s, %s
// after the server had ended the lease, with Done still open.
const neverSignalledLock = "the recipe never signalled the loss while it held: its holder's Done was still open when the workload released the lock at %s, " +
	"%s after the server had ended the lease; a holder must close Done once its lease can no longer be known to be alive — a lease guard of its own, " +
	"or the session's Done — or the library gives its caller no way to stop in time"

// lockSignal says, for the lock hold hd whose lease had ended on the server
// as e says, whether and when its recipe told the holder (KindLost), and
// the fix: signalled late, by how much; never signalled, when the workload
// released with Done open (ReleaseDoneOpen); lateDone when the history
// cannot tell.
func lockSignal(h *History, hd hold, e expiry) string {
	process, _, _ := strings.Cut(hd.client, "/")
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != KindLost || op.Outcome != OutcomeOK || op.Key != h.Ops[hd.take].Key ||
			(op.Client != hd.client && op.Client != process) || op.Call < hd.start || op.Call > hd.end {
			continue
		}
		if op.Call < e.at {
			break // it signalled in time: what went on was not for want of a signal
		}
		return sprintf("the recipe signalled the loss only at %s (its holder's Done closed), %s after the server had ended the lease: %s",
			fmtTime(op.Call), fmtDur(op.Call-e.at), lateDone)
	}
	if hd.give >= 0 && h.Ops[hd.give].Kind == KindRelease && h.Ops[hd.give].Input.Value == ReleaseDoneOpen {
		give := h.Ops[hd.give].Call
		return sprintf(neverSignalledLock, fmtTime(give), fmtDur(give-e.at))
	}
	return lateDone
}

// pausedFix is the fix for a holder paused between its last check and its
// next step: nothing it runs can notice in time.
const pausedFix = "no check in the holder can catch a pause between its last check and its next step; " +
	"only a fencing token the resource checks refuses the late write"

// expiry is when a holder's lease had expired on the server, at the latest.
type expiry struct {
	at    time.Duration // the lease was gone on the server by then
	lease int64         // 0 if the take did not record it
	ttl   time.Duration
	fault *FaultEvent // the fault that revoked the lease or cut the holder off
	// revoked: the fault revoked the lease at its start; otherwise it cut
	// the holder off from its start for at least the TTL.
	revoked bool
}

// leaseExpiry returns when the lease of the hold that client began with
// take (an index in History.Ops) had expired on the server, if the faults
// prove it did so before until; false if they do not.
func leaseExpiry(h *History, client string, take int, until time.Duration) (expiry, bool) {
	t := &h.Ops[take]
	for i := range h.Faults {
		f := &h.Faults[i]
		if !aimedAt(f, client) || f.Start < t.Call || f.Start >= until || (f.Err != "" && !f.InForce()) || f.NotApplicable != "" {
			continue // not this hold's, failed, or did nothing to a recipe without a lease
		}
		e := expiry{lease: t.Output.Lease, ttl: h.SessionTTL, fault: f}
		switch {
		case f.Action == "revoke-lease" && f.Start >= t.Return:
			// It revoked the lease of the client's latest take: this one.
			e.at, e.revoked = f.Start, true
		case slices.Contains(cutsOff, f.Action) && h.SessionTTL > 0:
			e.at = addTime(f.Start, h.SessionTTL)
			if (f.Healed && f.End < e.at) || e.at >= until || leadershipMayMove(h, f, e.at) {
				continue
			}
		default:
			continue
		}
		return e, true
	}
	return expiry{}, false
}

// aimedAt reports whether f was aimed at client, or at the process whose
// thread client is ("c1" for "c1/2").
func aimedAt(f *FaultEvent, client string) bool {
	process, _, _ := strings.Cut(client, "/")
	return slices.Contains(f.Targets, client) || slices.Contains(f.Targets, process)
}

// leadershipMayMove reports whether a fault other than cut, one that may
// move etcd's leadership, was in force at some time between cut's start and
// end.
func leadershipMayMove(h *History, cut *FaultEvent, end time.Duration) bool {
	for i := range h.Faults {
		f := &h.Faults[i]
		if f == cut || slices.Contains(leaseNeutral, f.Action) {
			continue
		}
		fEnd := Infinity
		if f.Healed {
			fEnd = f.End
		}
		if f.Start <= end && fEnd >= cut.Start {
			return true
		}
	}
	return false
}

// since says how the lease ended, to follow "after", e.g. "its lease
// 1eb3a20cc7987f04 had expired on the server (by 1.015s: TTL 1s, and no
// renewal could reach the server once pause(lock-holder L) cut c1 off at
// 0.015s)".
func (e expiry) since(client string) string {
	lease := "its lease"
	if e.lease != 0 {
		lease = sprintf("its lease %x", e.lease)
	}
	if e.revoked {
		return sprintf("%s was revoked on the server (at %s, by %s)", lease, fmtTime(e.at), e.fault.Name)
	}
	return sprintf("%s had expired on the server (by %s: TTL %s, and no renewal could reach the server once %s cut %s off at %s)",
		lease, fmtTime(e.at), e.ttl, e.fault.Name, client, fmtTime(e.fault.Start))
}

// fmtDur renders a duration to the millisecond ("1.603s", "508ms").
func fmtDur(d time.Duration) string { return d.Round(time.Millisecond).String() }

// pausedThrough reports whether the fault behind e was a pause still in
// force at t: the holder's workload could not run then.
func (e expiry) pausedThrough(t time.Duration) bool {
	return e.fault.Action == "pause" && (!e.fault.Healed || e.fault.End >= t)
}
