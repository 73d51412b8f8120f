package checker

import (
	"slices"
	"time"
)

// judgePriorities reports each ok dequeue that passed over an item of a
// strictly higher priority (a lower Input.Priority) which was in the queue
// for all of the dequeue: enqueued ok before it began, delivered by an ok
// dequeue that began after it returned. See QueueDelivery. A dequeue begins
// at its call, or at the call of the first of the dequeues of unknown
// outcome its client made just before it: a recipe that settles a claim
// whose answer was lost delivers, in the next call, an item it claimed in
// an earlier one.
//
// The dequeues are swept in the order of their calls; an item joins the
// candidates once its enqueue returned before the sweep's call, and never
// leaves, so each priority keeps only the candidate delivered last: if
// that one was not still waiting when a dequeue returned, none was.
func (q *queueRun) judgePriorities() {
	type item struct {
		name     string
		prio     int64
		ready    time.Duration // its enqueue's return
		enq, deq int
	}
	begins := q.dequeueBegins()
	var items []item
	levels := map[int64]bool{}
	for name, d := range q.deq {
		e := q.enq[name]
		if q.h.Ops[e].Outcome != OutcomeOK {
			continue
		}
		it := item{name: name, prio: q.h.Ops[e].Input.Priority, ready: q.h.Ops[e].Return, enq: e, deq: d}
		items = append(items, it)
		levels[it.prio] = true
	}
	if len(levels) < 2 {
		return // one priority: nothing to invert
	}
	prios := slices.Sorted(func(yield func(int64) bool) {
		for p := range levels {
			if !yield(p) {
				return
			}
		}
	})
	level := func(p int64) int { i, _ := slices.BinarySearch(prios, p); return i }
	slices.SortFunc(items, func(a, b item) int { return cmpDur(a.ready, b.ready) })
	dequeues := slices.Clone(items) // the same items, by their dequeue's call
	slices.SortFunc(dequeues, func(a, b item) int { return cmpDur(begins[a.deq], begins[b.deq]) })

	latest := make([]int, len(prios)) // per level, the ready item delivered last; -1 if none
	for i := range latest {
		latest[i] = -1
	}
	next := 0
	for _, x := range dequeues {
		d := &q.h.Ops[x.deq]
		for ; next < len(items) && items[next].ready < begins[x.deq]; next++ {
			l := level(items[next].prio)
			if latest[l] < 0 || begins[items[next].deq] > begins[items[latest[l]].deq] {
				latest[l] = next
			}
		}
		for l := range level(x.prio) {
			if latest[l] < 0 {
				continue
			}
			y := items[latest[l]]
			yd := &q.h.Ops[y.deq]
			if begins[y.deq] <= d.Return {
				continue
			}
			ye := &q.h.Ops[y.enq]
			q.rep.violation(ViolationPriorityInversion, []*Operation{ye, d, yd},
				"%s dequeued item %q (priority %d) from queue %s at %s while item %q (priority %d), enqueued by %s at %s, "+
					"waited: %s took it only at %s",
				d.Client, x.name, x.prio, q.key, fmtTime(d.Return), y.name, y.prio, ye.Client, fmtTime(ye.Return),
				yd.Client, fmtTime(yd.Return))
			break
		}
	}
}

// dequeueBegins returns, for each ok dequeue that delivered an item, when
// it began: its call, or the call of the first of the unbroken run of
// dequeues of unknown outcome its client made on the queue before it.
func (q *queueRun) dequeueBegins() map[int]time.Duration {
	begins := map[int]time.Duration{}
	first := map[string]time.Duration{} // per client, the first unknown dequeue since its last ok one
	ops := make([]int, 0, len(q.deq)+len(q.unknown))
	for _, i := range q.deq {
		ops = append(ops, i)
	}
	ops = append(ops, q.unknown...)
	slices.SortFunc(ops, func(a, b int) int { return cmpDur(q.h.Ops[a].Call, q.h.Ops[b].Call) })
	for _, i := range ops {
		op := &q.h.Ops[i]
		if op.Outcome == OutcomeUnknown {
			if _, ok := first[op.Client]; !ok {
				first[op.Client] = op.Call
			}
			continue
		}
		begins[i] = op.Call
		if t, ok := first[op.Client]; ok {
			begins[i] = t
			delete(first, op.Client)
		}
	}
	return begins
}

func cmpDur(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
