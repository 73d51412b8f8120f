package checker

import "slices"

// MutexOptions configures MutualExclusion. The zero value checks everything
// and keeps 20 violations.
type MutexOptions struct {
	// ResourceOnly skips the check that holds never overlap and judges only
	// the guarded resource (accepted writes, lost updates). Use it for
	// fenced workloads, where a paused holder may go on believing it holds
	// a lock its lease has lost, and the resource is what must stay safe.
	ResourceOnly bool
	// ByChecks judges each hold by the holder's checks: a hold ends at
	// the last step of work its holder began (a counter's or a lock-set's
	// read or write), or at its release if sooner. Use it for a holder
	// that asks its recipe whether it still holds before each step
	// instead of watching its session: its check's yes is true when
	// given, and a step begun in time is the fenced resource's to judge
	// (see holdsByChecks).
	ByChecks bool
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all. Metrics["violations"] counts them all.
	MaxViolations int
}

// MutualExclusion checks that locks exclude: per lock name, the intervals
// during which clients believed they held it (acquire returned → release
// called) never overlap, and the resource each lock guards shows no sign of
// two holders.
//
// It reads, per lock name Key:
//   - acquire, release, crash: the holds. An acquire of unknown outcome
//     gives no hold but lets one later release match; a failed release
//     leaves the hold in place; a crash ends every hold of its client.
//     Holds that touch (release called at the instant the next acquire
//     returns) do not overlap.
//   - guarded-write with outcome ok (the resource accepted it): it must be
//     called during a hold of its client. A write without a token
//     (Input.Token 0) is stale if another client acquired the lock after
//     that hold began and before the write was called: nothing could tell
//     the resource. A write with a token is stale if the resource had
//     already seen a higher token — an ok guarded-write or counter-read
//     carrying one returned before the write was called. A write from a
//     superseded holder that reaches a fenced resource before its
//     successor does is ordered by its token and harms nothing.
//   - set-add (Input.Value) and set-read (Output.Values), Jepsen's
//     lock-set: a read must contain every element whose add returned ok
//     before the read was called, and only elements some ok or unknown add
//     called before the read returned could have written.
//   - counter-incr and counter-read (Output.Count): a read is at least the
//     number of ok increments that returned before it was called, and at
//     most the number of ok or unknown increments called before it
//     returned.
//
// For its sentences only, it reads History.SessionTTL, acquire's
// Output.Lease and History.Faults: when they prove that a holder's lease had
// expired on the server (a revoke-lease aimed at it, or a pause, isolate,
// partition or reset that cut it off for a TTL while no fault could move
// etcd's leadership), an overlap or stale-write sentence says by how much
// the holder outlived its lease, and what would have stopped it.
//
// Invalid: a release with no matching acquire, an acquire while already
// holding, a release called before its acquire returned, an acquire without
// a lock name, and whatever History.Validate rejects. With no hold and no
// resource operation to judge the verdict is unknown.
func MutualExclusion(h History, opts MutexOptions) Result {
	rep := newReport(CheckerMutualExclusion, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	keys, err := collectHolds(&h, lockPair)
	if err != nil {
		return rep.invalid(err)
	}
	holds, overlapping := 0, 0
	for _, kh := range keys {
		holds += len(kh.holds)
		if opts.ResourceOnly {
			continue
		}
		if opts.ByChecks {
			full := kh.holds
			overlaps(holdsByChecks(&h, kh.key, full), func(o overlap) {
				overlapping++
				i := slices.IndexFunc(full, func(hd hold) bool { return hd.take == o.earlier.take })
				msg, ops := describeByChecks(&h, lockPair, kh.key, o, full[i])
				rep.violation(ViolationOverlap, ops, "%s", msg)
			})
			continue
		}
		overlaps(kh.holds, func(o overlap) {
			overlapping++
			msg, ops := describeOverlap(&h, lockPair, kh.key, o)
			rep.violation(ViolationOverlap, ops, "%s", msg)
		})
	}
	rep.res.Metrics["locks"] = float64(len(keys))
	rep.res.Metrics["holds"] = float64(holds)
	rep.res.Metrics["overlapping_holds"] = float64(overlapping)
	resourceOps, err := checkResource(&h, keys, rep)
	if err != nil {
		return rep.invalid(err)
	}

	summary := sprintf("%s of %s", plural(holds, "hold"), plural(len(keys), "lock"))
	if resourceOps > 0 {
		summary += sprintf(", %s", plural(resourceOps, "resource operation"))
	}
	undecided := ""
	switch {
	case opts.ResourceOnly && resourceOps == 0:
		undecided = "no guarded resource operations"
	case len(keys) == 0 && resourceOps == 0:
		undecided = "no lock operations"
	case holds == 0 && resourceOps == 0:
		undecided = "no client ever held a lock"
	}
	return rep.done(summary, undecided)
}
