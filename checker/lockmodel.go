package checker

import (
	"github.com/anishathalye/porcupine"
)

// LockLinearizable checks the lock operations themselves against a mutex
// model with porcupine, partitioned per lock name: is there an order of the
// acquires and releases, each taking effect at one instant between its call
// and its return, in which nobody acquires a lock somebody else holds?
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
	parts := make([]linPartition, 0, len(keys))
	for _, kh := range keys {
		p := linPartition{key: kh.key, ops: make([]porcupine.Operation, 0, len(kh.steps))}
		for _, s := range kh.steps {
			op := &h.Ops[s.op]
			in := lockIn{give: s.give, client: ids[op.Client], gen: s.gen}
			out := lockOut{unknown: op.Outcome == OutcomeUnknown}
			po := porcupineOp(&h, s.op, ids, in, out)
			if s.crash {
				po.Output = lockOut{unknown: true}
				po.Return = int64(Infinity)
			}
			p.ops = append(p.ops, po)
		}
		parts = append(parts, p)
	}
	return checkLinearizable(&h, rep, "lock", lockModel(names), parts, opts)
}

// lockIn is an acquire (give false) or a release by client; gen is the
// linStep's generation.
type lockIn struct {
	give        bool
	client, gen int
}

// lockOut says whether the outcome was unknown.
type lockOut struct {
	unknown bool
}

// lockState is who holds the lock, and which of their acquires gave it.
type lockState struct {
	held        bool
	client, gen int
}

// lockModel is a mutex with an owner. A release frees the lock only if its
// client holds it through an acquire no later than the release's own
// (see linStep.gen); otherwise it changes nothing.
func lockModel(names []string) porcupine.Model {
	name := func(c int) string {
		if c >= 0 && c < len(names) {
			return names[c]
		}
		return sprintf("client %d", c)
	}
	return porcupine.Model{
		Init: func() any { return lockState{} },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(lockState), input.(lockIn), output.(lockOut)
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
				return out.unknown, s
			}
		},
		Hash: func(state any) uint64 {
			s := state.(lockState)
			if !s.held {
				return 0
			}
			return uint64(s.client+1)<<32 ^ uint64(s.gen)
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(lockIn), output.(lockOut)
			verb := "acquire"
			if in.give {
				verb = "release"
			}
			res := "ok"
			if out.unknown {
				res = "unknown"
			}
			return sprintf("%s(%s) -> %s", verb, name(in.client), res)
		},
		DescribeState: func(state any) string {
			if s := state.(lockState); s.held {
				return "held by " + name(s.client)
			}
			return "free"
		},
	}
}
