package checker

import (
	"slices"
	"time"
)

// BarrierOptions configures BarrierSafety. The zero value takes the bound
// from the history's session TTL and keeps 20 violations.
type BarrierOptions struct {
	// Bound is how long, after the last heal, a client may go on waiting
	// at a plain barrier that is down, or in a double barrier's Enter once
	// its count have arrived. 0 means History.SessionTTL + 2 s
	// (60 s + 2 s if the history gives no TTL): the bound Liveness allows,
	// so that one run's reports speak of one bound. Nothing of a plain
	// barrier lives on a lease, but after a heal a client may take a
	// keepalive's time and more to find its connection again and its
	// watch resumed, and the scenarios' TTL is a second or two.
	Bound time.Duration
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all. Metrics["violations"] counts them all.
	MaxViolations int
}

// BarrierSafety checks that barriers let nobody through early, double
// barriers (enter, leave) and plain ones (hold, lift, wait) alike, and
// that nobody waits on long once a barrier should have let it through. One checker
// for both: they are one family of recipes, judged by the same rule — no
// pass before the barrier opens — and a scenario names one checker.
//
// Per double barrier Key:
//   - an ok enter returned only while the barrier's count of clients were
//     inside or arriving (else ViolationEarlyPass). A client counts from
//     the call of an enter until an ok leave of its returns: an enter of
//     unknown outcome may have put its key, so it counts too; a failed one
//     (turned away: the barrier was full) does not. The count is
//     the largest Input.Token any enter declared: a client that believes
//     in a smaller count is judged by the group's;
//   - an ok leave returned only once every other client that entered
//     with it had called leave (else ViolationEarlyPass). Entered with it:
//     the other's last ok enter before the leave returned no earlier than
//     the leaver's last ok enter was called;
//   - from the last heal on, no enter may go on for longer than the bound
//     while the barrier's count of clients are arriving or inside and none
//     is leaving (else ViolationStuckWait; the model is in
//     barrier_stuck.go): arriving from an enter's call until it returns
//     or its client gives up on it, inside from an ok enter until the
//     client's next call at the barrier. A crash of the client ends both.
//
// What is decidable: etcd's double barrier keeps no rounds — a leave
// returns only once every key of the group is gone, so one pass cannot
// mix with the next — and the check needs none either. Input.Value may
// name the round for the reader of a report; the check does not read it.
// A client that was dropped from the barrier without knowing it (its
// session's lease expired while it was inside) has not called leave; the
// others' leaves are judged against it only if its enter returned ok. A
// client that crashed after its enter is judged as one that called leave
// at the crash: its key leaves with its lease, at a time the history
// does not record.
//
// Per plain barrier Key (the model is in plainbarrier.go):
//   - an ok wait called after an ok hold had returned, with no lift that
//     could have taken effect after that hold's call and before the wait
//     returned, passed a barrier held throughout (ViolationEarlyPass);
//   - from the last heal on, no wait may go on for longer than the bound
//     while the barrier is surely down: from an ok lift's return (no hold
//     in flight across it) to the next hold's call (else
//     ViolationStuckWait). A wait goes on until it returns or its client
//     gives up (GaveUp, else the end of the history).
//
// A wait at a barrier nobody ever held is fine: it returns at once.
//
// A fault never healed makes the waits' end undecided, and the verdict
// unknown without a violation.
//
// Invalid: what History.Validate rejects, an enter whose count is below
// 1, a plain-barrier operation without a Key, a Key used as both kinds of
// barrier.
//
// Cost: O(n·c·log n) for n operations and c clients of the double
// barriers, and O(n log n + s) for their stuck enters, s as below; O(n log n + s) for the plain ones, s the number of stretches
// of the barrier down that the waits span (one or two each, in practice).
func BarrierSafety(h History, opts BarrierOptions) Result {
	rep := newReport(CheckerBarrierSafety, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	keys, groups := groupByKey(&h, KindEnter, KindLeave)
	plainKeys, plainGroups := groupByKey(&h, KindHold, KindLift, KindWait)
	crossings, undecided := 0, ""
	for _, key := range plainKeys {
		if idx, ok := groups[key]; ok {
			op := &h.Ops[plainGroups[key][0]]
			return rep.invalid(invalidOp(op, "barrier %s is a double barrier too (%s of %s): a key names one barrier", key, h.Ops[idx[0]].Kind, h.Ops[idx[0]].Client))
		}
	}
	_, bound := LivenessOptions{Bound: opts.Bound}.resolve(&h)
	var heal time.Duration
	for _, f := range h.Faults {
		if f.InForce() {
			heal = Infinity
			undecided = sprintf("fault %q, injected at %s, was never healed: waits are not judged for their end", f.Name, fmtTime(f.Start))
			break
		}
		heal = max(heal, f.End)
	}
	for _, key := range plainKeys {
		p := plainRun{h: &h, rep: rep, key: key, bound: bound, heal: heal, end: h.lastTime()}
		if err := p.collect(plainGroups[key]); err != nil {
			return rep.invalid(err)
		}
		p.judgeEarly()
		if heal < Infinity {
			p.stretches()
			p.judgeStuck()
		}
		crossings += p.passed
	}
	crashes := map[string][]time.Duration{}
	for i := range h.Ops {
		if op := &h.Ops[i]; op.Kind == KindCrash {
			crashes[op.Client] = append(crashes[op.Client], op.Call)
		}
	}
	for _, cs := range crashes {
		slices.Sort(cs)
	}
	for _, key := range keys {
		b := barrierRun{h: &h, rep: rep, key: key, clients: map[string]*barrierClient{}, crashes: crashes}
		if err := b.collect(groups[key]); err != nil {
			return rep.invalid(err)
		}
		crossings += b.judge()
		if heal < Infinity {
			b.judgeStuck(groups[key], crashes, bound, heal, h.lastTime())
		}
	}
	rep.res.Metrics["barriers"] = float64(len(keys) + len(plainKeys))
	rep.res.Metrics["crossings"] = float64(crossings)
	rep.res.Metrics["bound_seconds"] = bound.Seconds()
	if len(keys)+len(plainKeys) == 0 {
		undecided = "no barrier operations"
	}
	return rep.done(sprintf("%s through %s", plural(crossings, "crossing"), plural(len(keys)+len(plainKeys), "barrier")), undecided)
}

// barrierClient is what one client did at one barrier, each list in call
// order (a client's operations do not overlap).
type barrierClient struct {
	enterCalls   []time.Duration // every enter
	okEnters     []int           // ok enters
	okLeaveRets  []time.Duration // returns of ok leaves
	leaveCalls   []time.Duration // every leave
	okEnterCalls []time.Duration // calls of okEnters
	okEnterRets  []time.Duration // returns of okEnters
}

// barrierRun is one barrier's operations.
type barrierRun struct {
	h       *History
	rep     *report
	key     string
	clients map[string]*barrierClient
	names   []string // clients, sorted
	order   []int    // the ok enters and leaves, by call
	count   int64
	crashes map[string][]time.Duration // each client's crashes, sorted
}

func (b *barrierRun) collect(idx []int) error {
	for _, i := range idx {
		op := &b.h.Ops[i]
		c := b.clients[op.Client]
		if c == nil {
			c = &barrierClient{}
			b.clients[op.Client] = c
			b.names = append(b.names, op.Client)
		}
		switch op.Kind {
		case KindEnter:
			if op.Input.Token < 1 {
				return invalidOp(op, "enter with count %d (Input.Token): want 1 or more", op.Input.Token)
			}
			b.count = max(b.count, op.Input.Token)
			if op.Outcome != OutcomeFailed {
				c.enterCalls = append(c.enterCalls, op.Call)
			}
			if op.Outcome == OutcomeOK {
				c.okEnters = append(c.okEnters, i)
				c.okEnterCalls = append(c.okEnterCalls, op.Call)
				c.okEnterRets = append(c.okEnterRets, op.Return)
				b.order = append(b.order, i)
			}
		case KindLeave:
			c.leaveCalls = append(c.leaveCalls, op.Call)
			if op.Outcome == OutcomeOK {
				c.okLeaveRets = append(c.okLeaveRets, op.Return)
				b.order = append(b.order, i)
			}
		}
	}
	slices.Sort(b.names)
	return nil
}

// last is the last of sorted ts at or before t, and whether there is one.
func last(ts []time.Duration, t time.Duration) (time.Duration, bool) {
	i, _ := slices.BinarySearchFunc(ts, t, func(x, t time.Duration) int { return cmpDur(x, t+1) })
	if i == 0 {
		return 0, false
	}
	return ts[i-1], true
}

// judge reports the early passes and returns the ok crossings.
func (b *barrierRun) judge() int {
	for _, i := range b.order {
		op := &b.h.Ops[i]
		if op.Kind == KindEnter {
			b.judgeEnter(op)
		} else {
			b.judgeLeave(op)
		}
	}
	return len(b.order)
}

// judgeEnter counts the clients inside or arriving when op returned.
func (b *barrierRun) judgeEnter(op *Operation) {
	in := 0
	for _, name := range b.names {
		c := b.clients[name]
		e, ok := last(c.enterCalls, op.Return)
		if !ok {
			continue
		}
		if l, ok := last(c.okLeaveRets, op.Return); ok && l >= e {
			continue
		}
		in++
	}
	if int64(in) < b.count {
		b.rep.violation(ViolationEarlyPass, []*Operation{op},
			"%s passed Enter of barrier %s at %s when %s of %d could be inside or arriving",
			op.Client, b.key, fmtTime(op.Return), plural(in, "client"), b.count)
	}
}

// judgeLeave finds a client that entered with op's client and had not
// called leave when op returned.
func (b *barrierRun) judgeLeave(op *Operation) {
	mine, ok := last(b.clients[op.Client].okEnterCalls, op.Call)
	if !ok {
		return
	}
	for _, name := range b.names {
		c := b.clients[name]
		if name == op.Client || len(c.okEnters) == 0 {
			continue
		}
		// Its last ok enter that returned before op did.
		k, _ := slices.BinarySearchFunc(c.okEnterRets, op.Return, func(x, t time.Duration) int { return cmpDur(x, t+1) })
		if k == 0 || c.okEnterRets[k-1] < mine {
			continue
		}
		e := &b.h.Ops[c.okEnters[k-1]]
		if l, ok := last(c.leaveCalls, op.Return); ok && l >= e.Call {
			continue
		}
		// A crash ends the client's part as a leave would: its key stays
		// until its lease expires, which the history does not record.
		if cr, ok := last(b.crashes[name], op.Return); ok && cr >= e.Call {
			continue
		}
		b.rep.violation(ViolationEarlyPass, []*Operation{op, e},
			"%s passed Leave of barrier %s at %s while %s, inside since %s, had not called Leave",
			op.Client, b.key, fmtTime(op.Return), name, fmtTime(e.Return))
		return
	}
}
