package checker

import (
	"slices"
	"time"
)

// This file judges etcd's plain barrier: a holder puts it up (hold) and
// takes it down (lift), and a wait returns once it is down. The model:
//
//   - The barrier is up from a hold's effect to the next lift's. An
//     operation takes effect somewhere between its call and its return; a
//     hold of unknown outcome, at latest before its client's next call at
//     the barrier (a client that learns nothing of its hold tries again,
//     and the holder of a workload is one client), or at any later time if
//     the client makes none. A failed hold (the barrier was up) changed
//     nothing.
//   - Safety: an ok wait called after an ok hold had returned, with no
//     lift that could have taken effect after that hold's call and before
//     the wait returned, passed a barrier that was up throughout: an
//     early pass.
//   - Waiting ends: a stretch during which the barrier is surely down
//     begins when an ok lift returns, if no hold could take effect between
//     the lift's call and that return, and lasts until the next hold is
//     called. From the last heal on, no wait may go on for longer than the
//     bound inside such a stretch: a stuck wait. A wait goes on until it
//     returns, or, of unknown outcome, until its client gave up (GaveUp,
//     else the end of the history).

// plainRun is one plain barrier's operations.
type plainRun struct {
	h     *History
	rep   *report
	key   string
	bound time.Duration
	heal  time.Duration
	end   time.Duration

	holds   []int           // holds that were not refused, by call
	until   []time.Duration // per holds: the latest its effect may come; then the running maximum
	okHolds []int           // ok holds, by return
	latest  []int           // per okHolds: the one of okHolds[:i+1] called last
	lifts   []int           // lifts that were not refused, by call
	liftEnd []time.Duration // running maximum of their returns (Infinity if unknown)
	waits   []int           // every wait, by call
	stretch []downStretch   // when the barrier was surely down, by start
	passed  int             // ok waits
}

// downStretch is a stretch of time during which the barrier was surely
// down: from the return of lift to the next hold's call (Infinity: none).
type downStretch struct {
	from, to time.Duration
	lift     int
}

// collect sorts idx, the barrier's operations by call, into their kinds,
// and refuses an operation with no key.
func (p *plainRun) collect(idx []int) error {
	pending := map[string][]int{} // per client, its unknown holds (indexes into holds) waiting for its next call
	for _, i := range idx {
		op := &p.h.Ops[i]
		if op.Key == "" {
			return invalidOp(op, "%s without a barrier key: want Key to name the barrier", op.Kind)
		}
		for _, j := range pending[op.Client] {
			p.until[j] = op.Call
		}
		delete(pending, op.Client)
		switch op.Kind {
		case KindHold:
			if op.Outcome == OutcomeFailed {
				continue
			}
			p.holds = append(p.holds, i)
			p.until = append(p.until, op.Return)
			if op.Outcome == OutcomeOK {
				p.okHolds = append(p.okHolds, i)
			} else {
				pending[op.Client] = append(pending[op.Client], len(p.holds)-1)
			}
		case KindLift:
			if op.Outcome != OutcomeFailed {
				p.lifts = append(p.lifts, i)
			}
		case KindWait:
			p.waits = append(p.waits, i)
			if op.Outcome == OutcomeOK {
				p.passed++
			}
		}
	}
	for i := 1; i < len(p.until); i++ {
		p.until[i] = max(p.until[i], p.until[i-1])
	}
	slices.SortStableFunc(p.okHolds, func(a, b int) int { return cmpDur(p.h.Ops[a].Return, p.h.Ops[b].Return) })
	p.latest = make([]int, len(p.okHolds))
	for k, i := range p.okHolds {
		p.latest[k] = i
		if k > 0 && p.h.Ops[p.latest[k-1]].Call > p.h.Ops[i].Call {
			p.latest[k] = p.latest[k-1]
		}
	}
	for k, i := range p.lifts {
		p.liftEnd = append(p.liftEnd, p.h.Ops[i].Return)
		if k > 0 {
			p.liftEnd[k] = max(p.liftEnd[k], p.liftEnd[k-1])
		}
	}
	return nil
}

// stretches finds when the barrier was surely down.
func (p *plainRun) stretches() {
	var oks []int
	for _, i := range p.lifts {
		if p.h.Ops[i].Outcome == OutcomeOK {
			oks = append(oks, i)
		}
	}
	slices.SortStableFunc(oks, func(a, b int) int { return cmpDur(p.h.Ops[a].Return, p.h.Ops[b].Return) })
	for _, i := range oks {
		l := &p.h.Ops[i]
		// The holds called by the lift's return: is one of them possibly
		// in effect after the lift's call?
		k, _ := slices.BinarySearchFunc(p.holds, l.Return, func(j int, t time.Duration) int { return cmpDur(p.h.Ops[j].Call, t+1) })
		if k > 0 && p.until[k-1] > l.Call {
			continue
		}
		to := Infinity
		if k < len(p.holds) {
			to = p.h.Ops[p.holds[k]].Call
		}
		if n := len(p.stretch); n > 0 && p.stretch[n-1].to == to {
			continue // down since an earlier lift already
		}
		p.stretch = append(p.stretch, downStretch{from: l.Return, to: to, lift: i})
	}
}

// judgeEarly reports the ok waits that passed a barrier up throughout.
func (p *plainRun) judgeEarly() {
	for _, i := range p.waits {
		w := &p.h.Ops[i]
		if w.Outcome != OutcomeOK {
			continue
		}
		k, _ := slices.BinarySearchFunc(p.okHolds, w.Call, func(j int, t time.Duration) int { return cmpDur(p.h.Ops[j].Return, t) })
		if k == 0 {
			continue // no hold had returned when the wait was called
		}
		hold := &p.h.Ops[p.latest[k-1]]
		m, _ := slices.BinarySearchFunc(p.lifts, w.Return, func(j int, t time.Duration) int { return cmpDur(p.h.Ops[j].Call, t) })
		if m > 0 && p.liftEnd[m-1] > hold.Call {
			continue // a lift may have taken the barrier down in time
		}
		p.rep.violation(ViolationEarlyPass, []*Operation{w, hold},
			"%s's Wait at barrier %s, called at %s, returned at %s while the barrier was up throughout: %s's Hold returned at %s and no Release could have taken it down before the wait returned",
			w.Client, p.key, fmtTime(w.Call), fmtTime(w.Return), hold.Client, fmtTime(hold.Return))
	}
}

// judgeStuck reports the waits that went on past the bound while the
// barrier was surely down, after the last heal.
func (p *plainRun) judgeStuck() {
	for _, i := range p.waits {
		w := &p.h.Ops[i]
		end := w.Return
		if end >= Infinity {
			end = p.end
			if w.GaveUp > 0 {
				end = w.GaveUp
			}
		}
		start := max(w.Call, p.heal)
		k, _ := slices.BinarySearchFunc(p.stretch, start, func(s downStretch, t time.Duration) int { return cmpDur(s.to, t+1) })
		for ; k < len(p.stretch) && p.stretch[k].from < end; k++ {
			s := p.stretch[k]
			from := max(s.from, start)
			if addTime(from, p.bound) >= min(s.to, end) {
				continue
			}
			lift := &p.h.Ops[s.lift]
			next := "no Hold came after"
			if s.to < Infinity {
				next = "the next Hold was called at " + fmtTime(s.to)
			}
			p.rep.violation(ViolationStuckWait, []*Operation{w, lift},
				"%s's Wait at barrier %s, called at %s, was still waiting at %s, %s after %s, with the barrier down all along: %s's Release returned at %s and %s",
				w.Client, p.key, fmtTime(w.Call), fmtTime(addTime(from, p.bound)), p.bound, fmtTime(from), lift.Client, fmtTime(lift.Return), next)
			break
		}
	}
}
