package checker

// LockLinearizable checks the lock operations themselves against a mutex
// model with porcupine's search (see linSearch), partitioned per lock name:
// is there an order of the acquires and releases, each taking effect at one
// instant between its call and its return, in which nobody acquires a lock
// somebody else holds?
//
// It reads acquire, release and crash, with the same meaning and the same
// validation as MutualExclusion (see there): failed operations are left
// out; an operation of unknown outcome returns at +inf, so it may take
// effect at any instant after its call, or never; a crash of a client that
// held or may have held a lock becomes a release of unknown outcome called
// at the crash. A release by a client that does not hold the lock changes
// nothing (etcd's unlock deletes the client's own key, whether or not it
// still exists), and a release never frees a hold its client acquired
// after it: a client's operations happen in program order even when their
// times tie, and a release still in flight when its client gave up on it
// cannot undo a later acquire.
//
// On histories that pass validation it agrees with MutualExclusion's
// interval check; it exists as the independent second opinion Jepsen's
// method calls for, and for porcupine's visualization. If the search times
// out the verdict is unknown, never ok.
func LockLinearizable(h History, opts LinOptions) LinResult {
	rep := newReport(CheckerLockLinearizable, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return LinResult{Result: rep.invalid(err)}
	}
	keys, err := collectHolds(&h, lockPair)
	if err != nil {
		return LinResult{Result: rep.invalid(err)}
	}
	ids := clientIDs(&h)
	names := make([]string, len(ids))
	for n, i := range ids {
		names[i] = n
	}
	parts := make([]linPart[lockOp], 0, len(keys))
	for _, kh := range keys {
		p := linPart[lockOp]{key: kh.key, ops: make([]linOp[lockOp], 0, len(kh.steps))}
		for _, s := range kh.steps {
			op := &h.Ops[s.op]
			lo := linOp[lockOp]{call: int64(op.Call), ret: int64(op.End()), index: s.op,
				op: lockOp{give: s.give, client: ids[op.Client], gen: s.gen, unknown: op.Outcome == OutcomeUnknown}}
			if s.crash {
				lo.op.unknown, lo.ret = true, int64(Infinity)
			}
			p.ops = append(p.ops, lo)
		}
		parts = append(parts, p)
	}
	return checkLinearizable(&h, rep, "lock", lockModel(names), parts, opts)
}

// lockOp is an acquire (give false) or a release by client, of unknown
// outcome or not; gen is the linStep's generation.
type lockOp struct {
	give, unknown bool
	client, gen   int
}

// lockState is who holds the lock, and which of their acquires gave it.
type lockState struct {
	held        bool
	client, gen int
}

// lockModel is a mutex with an owner. A release frees the lock only if its
// client holds it through an acquire no later than the release's own
// (see linStep.gen); otherwise it changes nothing.
func lockModel(names []string) *linModel[lockState, lockOp] {
	name := func(c int) string {
		if c >= 0 && c < len(names) {
			return names[c]
		}
		return sprintf("client %d", c)
	}
	return &linModel[lockState, lockOp]{
		step: func(s lockState, in *lockOp) (bool, lockState) {
			switch {
			case in.give && s.held && s.client == in.client && s.gen <= in.gen:
				return true, lockState{}
			case in.give:
				return true, s // not this release's hold: nothing to delete
			case !s.held:
				return true, lockState{held: true, client: in.client, gen: in.gen}
			default:
				// Held: an acquire of unknown outcome did not take effect
				// here; an ok one cannot be placed here.
				return in.unknown, s
			}
		},
		hash: func(s lockState) uint64 {
			if !s.held {
				return 0
			}
			return uint64(s.client+1)<<32 ^ uint64(s.gen)
		},
		describeOp: func(in *lockOp) string {
			verb := "acquire"
			if in.give {
				verb = "release"
			}
			res := "ok"
			if in.unknown {
				res = "unknown"
			}
			return sprintf("%s(%s) -> %s", verb, name(in.client), res)
		},
		describeState: func(s lockState) string {
			if s.held {
				return "held by " + name(s.client)
			}
			return "free"
		},
	}
}
