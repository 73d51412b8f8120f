package checker

import (
	"cmp"
	"slices"
)

// MonotonicOptions configures MonotonicReads. The zero value keeps 20
// violations.
type MonotonicOptions struct {
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// MonotonicReads checks the session guarantee of monotonic reads on etcd's
// revisions: a client never sees the store's revision go backwards. Each
// read answered by etcd carries, in its response header, the revision of
// the member that answered; a read that began after another read of the
// same client had returned must answer at that revision or later. A
// serializable read answered by a member that lags behind breaks it.
//
// It reads the read operations with outcome ok and a recorded
// Output.Header; reads without one are skipped. One read precedes another
// of its client when it returned before the other was called (at the same
// instant, when it was invoked first). A crash of the client (KindCrash)
// starts a new process, which owes nothing to what the old one saw.
//
// It is O(n log n) in the reads.
//
// Invalid: whatever History.Validate rejects. With no read that recorded
// its header, the verdict is unknown.
func MonotonicReads(h History, opts MonotonicOptions) Result {
	rep := newReport(CheckerMonotonicReads, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	// Per client, its reads and crashes in the order they were invoked.
	byClient := map[string][]int{}
	var clients []string
	reads := 0
	for i := range h.Ops {
		op := &h.Ops[i]
		isRead := op.Kind == KindRead && op.Outcome == OutcomeOK && op.Output.Header != 0
		if !isRead && op.Kind != KindCrash {
			continue
		}
		if isRead {
			reads++
		}
		if _, ok := byClient[op.Client]; !ok {
			clients = append(clients, op.Client)
		}
		byClient[op.Client] = append(byClient[op.Client], i)
	}
	slices.Sort(clients)
	for _, c := range clients {
		monotonicClient(&h, byClient[c], rep)
	}
	rep.res.Metrics["reads"] = float64(reads)
	rep.res.Metrics["clients"] = float64(len(clients))
	undecided := ""
	if reads == 0 {
		undecided = "no read recorded the revision of its response header"
	}
	return rep.done(sprintf("%s by %s", plural(reads, "read"), plural(len(clients), "client")), undecided)
}

// monotonicClient checks one client's reads (and crashes), given as
// indices into h.Ops: a sweep over calls and returns in time, keeping the
// read of the highest revision among those returned so far.
func monotonicClient(h *History, idx []int, rep *report) {
	type event struct {
		at     int64
		ret    bool // a return; a call otherwise
		id, op int
	}
	evs := make([]event, 0, 2*len(idx))
	for _, i := range idx {
		op := &h.Ops[i]
		evs = append(evs, event{at: int64(op.Call), id: op.ID, op: i})
		if op.Outcome == OutcomeOK {
			evs = append(evs, event{at: int64(op.Return), ret: true, id: op.ID, op: i})
		}
	}
	// At one instant, a return comes before a call, so that an operation
	// that returned then precedes one called then; among calls, and among
	// returns, the operation invoked first comes first.
	slices.SortFunc(evs, func(a, b event) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		if a.ret != b.ret {
			if a.ret {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.id, b.id)
	})
	var best *Operation // the returned read of the highest revision
	for _, e := range evs {
		op := &h.Ops[e.op]
		switch {
		case op.Kind == KindCrash && !e.ret:
			best = nil
		case op.Kind == KindCrash:
		case e.ret:
			if best == nil || op.Output.Header > best.Output.Header {
				best = op
			}
		case best != nil && best.ID != op.ID && op.Output.Header < best.Output.Header:
			rep.violation(ViolationRevisionBackwards, []*Operation{best, op},
				"%s saw the revision go backwards: op %d (read %s at %s) answered at revision %d, after op %d (read %s at %s) had answered at %d",
				op.Client, op.ID, op.Key, fmtTime(op.Call), op.Output.Header,
				best.ID, best.Key, fmtTime(best.Call), best.Output.Header)
		}
	}
}
