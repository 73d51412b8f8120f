package checker

import (
	"slices"
	"time"
)

// BarrierOptions configures BarrierSafety. The zero value keeps 20
// violations.
type BarrierOptions struct {
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all. Metrics["violations"] counts them all.
	MaxViolations int
}

// BarrierSafety checks that a double barrier lets nobody through early.
// Per barrier Key and round (Input.Value: each client's enter and leave of
// one pass through the barrier carry the same round name, and a client
// goes through each round once):
//   - an ok enter returned only once the barrier's count of clients had
//     called enter in its round (else ViolationEarlyPass). The count is
//     the largest Input.Token any enter of the round declared: a client
//     that believes in a smaller count is judged by the group's;
//   - an ok leave returned only once every client whose enter of the
//     round returned ok had called leave in it (else ViolationEarlyPass).
//
// What is decidable: an enter counts as an arrival from its call, whatever
// its outcome — one of unknown outcome may have put its key — so an early
// pass is reported only when too few clients could possibly have arrived.
// A leave waits only for those known to have entered; a client whose enter
// failed or whose outcome is unknown is not waited for.
//
// Invalid: what History.Validate rejects, an enter or leave without a
// round, an enter whose count is below 1, a client entering one round
// twice. Liveness — that everyone gets through once all have arrived — is
// not judged here.
//
// Cost: O(n log n) for n operations.
func BarrierSafety(h History, opts BarrierOptions) Result {
	rep := newReport(CheckerBarrierSafety, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	keys, groups := groupByKey(&h, KindEnter, KindLeave)
	rounds, passes := 0, 0
	for _, key := range keys {
		byRound := map[string][]int{}
		var names []string
		for _, i := range groups[key] {
			op := &h.Ops[i]
			if op.Input.Value == "" {
				return rep.invalid(invalidOp(op, "%s without a round (Input.Value)", op.Kind))
			}
			if op.Kind == KindEnter && op.Input.Token < 1 {
				return rep.invalid(invalidOp(op, "enter with count %d (Input.Token): want 1 or more", op.Input.Token))
			}
			if _, ok := byRound[op.Input.Value]; !ok {
				names = append(names, op.Input.Value)
			}
			byRound[op.Input.Value] = append(byRound[op.Input.Value], i)
		}
		for _, r := range names {
			b := barrierRound{h: &h, rep: rep, key: key, round: r}
			if err := b.collect(byRound[r]); err != nil {
				return rep.invalid(err)
			}
			passes += b.judge()
			rounds++
		}
	}
	rep.res.Metrics["barriers"] = float64(len(keys))
	rep.res.Metrics["rounds"] = float64(rounds)
	rep.res.Metrics["passes"] = float64(passes)
	undecided := ""
	if len(keys) == 0 {
		undecided = "no barrier operations"
	}
	return rep.done(sprintf("%s through %s; %s", plural(rounds, "round"), plural(len(keys), "barrier"), plural(passes, "pass")), undecided)
}

// barrierRound is one round of one barrier.
type barrierRound struct {
	h          *History
	rep        *report
	key, round string
	enters     []int          // by call
	leaves     []int          // by call
	leaveOf    map[string]int // client → its leave of the round
	count      int64
}

func (b *barrierRound) collect(idx []int) error {
	b.leaveOf = map[string]int{}
	entered := map[string]int{}
	for _, i := range idx {
		op := &b.h.Ops[i]
		switch op.Kind {
		case KindEnter:
			if j, ok := entered[op.Client]; ok {
				return invalidOp(op, "%s entered barrier %s round %s twice (first %s)", op.Client, b.key, b.round, &b.h.Ops[j])
			}
			entered[op.Client] = i
			b.enters = append(b.enters, i)
			b.count = max(b.count, op.Input.Token)
		case KindLeave:
			b.leaveOf[op.Client] = i
			b.leaves = append(b.leaves, i)
		}
	}
	return nil
}

// judge reports the early passes of the round and returns its ok passes.
func (b *barrierRound) judge() int {
	calls := make([]time.Duration, len(b.enters))
	for i, e := range b.enters {
		calls[i] = b.h.Ops[e].Call
	}
	passes := 0
	for _, e := range b.enters {
		op := &b.h.Ops[e]
		if op.Outcome != OutcomeOK {
			continue
		}
		passes++
		arrived, _ := slices.BinarySearchFunc(calls, op.Return, func(c, t time.Duration) int { return cmpDur(c, t+1) })
		if int64(arrived) < b.count {
			b.rep.violation(ViolationEarlyPass, []*Operation{op},
				"%s passed Enter of barrier %s round %s at %s when %s of %d had called Enter",
				op.Client, b.key, b.round, fmtTime(op.Return), plural(arrived, "client"), b.count)
		}
	}
	for _, l := range b.leaves {
		op := &b.h.Ops[l]
		if op.Outcome != OutcomeOK {
			continue
		}
		passes++
		for _, e := range b.enters {
			in := &b.h.Ops[e]
			if in.Outcome != OutcomeOK || in.Client == op.Client {
				continue
			}
			if j, ok := b.leaveOf[in.Client]; ok && b.h.Ops[j].Call <= op.Return {
				continue
			}
			b.rep.violation(ViolationEarlyPass, []*Operation{op, in},
				"%s passed Leave of barrier %s round %s at %s while %s, inside since %s, had not called Leave",
				op.Client, b.key, b.round, fmtTime(op.Return), in.Client, fmtTime(in.Return))
			break
		}
	}
	return passes
}
