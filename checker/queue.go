package checker

import (
	"slices"
)

// QueueOptions configures QueueDelivery. The zero value keeps 20
// violations.
type QueueOptions struct {
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all. Metrics["violations"] counts them all.
	MaxViolations int
}

// QueueDelivery checks that a queue delivers what it was given, at most
// once, and loses nothing: per queue Key,
//   - every item an ok dequeue returned had an enqueue of it called before
//     the dequeue returned (else ViolationPhantomItem, naming the item);
//   - no item was returned by two ok dequeues (ViolationDuplicateItem);
//   - once a drain saw the queue empty (an ok dequeue with
//     Output.Missing), every item whose enqueue returned ok before that
//     look was called had been returned by an ok dequeue, or may have been
//     taken by a dequeue of unknown outcome called after the enqueue was
//     (else ViolationLostItem). Items taken that way are counted in
//     Metrics["taken_unseen"]: etcd's recipe deletes an item to claim it,
//     so a dequeue whose answer is lost takes the item from everyone.
//
// It promises nothing of the order of items: with several producers and
// consumers a FIFO queue's order is defined only between an enqueue that
// returned before another was called, and etcd's recipe orders by the
// revision its key was created at.
//
// Invalid: what History.Validate rejects, an enqueue without an item, two
// enqueues of one item on one queue, an ok dequeue with neither an item nor
// Missing. The verdict is unknown, without a violation, when no drain saw a
// queue empty after its last ok enqueue: loss cannot be judged then.
func QueueDelivery(h History, opts QueueOptions) Result {
	rep := newReport(CheckerQueueDelivery, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	keys, groups := groupByKey(&h, KindEnqueue, KindDequeue)
	var undecided string
	items, delivered, unseen := 0, 0, 0
	for _, key := range keys {
		q := queueRun{h: &h, rep: rep, key: key, enq: map[string]int{}, deq: map[string]int{}}
		if err := q.collect(groups[key]); err != nil {
			return rep.invalid(err)
		}
		q.judge()
		items += len(q.enq)
		delivered += len(q.deq)
		unseen += q.unseen
		if q.drained < 0 && len(q.enq) > 0 && undecided == "" {
			undecided = sprintf("queue %s was never seen empty after its last enqueue: loss cannot be judged", key)
		}
	}
	m := rep.res.Metrics
	m["queues"] = float64(len(keys))
	m["items"] = float64(items)
	m["delivered"] = float64(delivered)
	m["taken_unseen"] = float64(unseen)
	if len(keys) == 0 {
		undecided = "no queue operations"
	}
	return rep.done(sprintf("%s enqueued, %d delivered on %s", plural(items, "item"), delivered, plural(len(keys), "queue")), undecided)
}

// queueRun is one queue's operations.
type queueRun struct {
	h       *History
	rep     *report
	key     string
	enq     map[string]int // item → its enqueue
	deq     map[string]int // item → its first ok dequeue
	unknown []int          // dequeues of unknown outcome
	drained int            // the last ok dequeue that saw the queue empty; -1 if none
	unseen  int
}

func (q *queueRun) collect(idx []int) error {
	q.drained = -1
	for _, i := range idx {
		op := &q.h.Ops[i]
		if op.Kind != KindEnqueue {
			continue
		}
		if op.Input.Value == "" {
			return invalidOp(op, "enqueue without an item (Input.Value)")
		}
		if j, ok := q.enq[op.Input.Value]; ok {
			return invalidOp(op, "item %q enqueued twice (first by %s); items must be unique", op.Input.Value, &q.h.Ops[j])
		}
		q.enq[op.Input.Value] = i
	}
	for _, i := range idx {
		op := &q.h.Ops[i]
		if op.Kind != KindDequeue {
			continue
		}
		switch {
		case op.Outcome == OutcomeUnknown:
			q.unknown = append(q.unknown, i)
		case op.Outcome != OutcomeOK:
		case op.Output.Missing:
			if q.drained < 0 || op.Call > q.h.Ops[q.drained].Call {
				q.drained = i
			}
		case op.Output.Value == "":
			return invalidOp(op, "ok dequeue with neither an item (Output.Value) nor Output.Missing")
		default:
			q.dequeued(i)
		}
	}
	return nil
}

// dequeued judges one ok dequeue of an item.
func (q *queueRun) dequeued(i int) {
	op := &q.h.Ops[i]
	item := op.Output.Value
	e, ok := q.enq[item]
	switch {
	case !ok:
		q.rep.violation(ViolationPhantomItem, []*Operation{op}, "%s dequeued item %q from queue %s at %s, which nobody enqueued",
			op.Client, item, q.key, fmtTime(op.Return))
		return
	case q.h.Ops[e].Call > op.Return:
		q.rep.violation(ViolationPhantomItem, []*Operation{&q.h.Ops[e], op},
			"%s dequeued item %q from queue %s at %s, before %s began to enqueue it at %s",
			op.Client, item, q.key, fmtTime(op.Return), q.h.Ops[e].Client, fmtTime(q.h.Ops[e].Call))
	}
	if first, ok := q.deq[item]; ok {
		f := &q.h.Ops[first]
		q.rep.violation(ViolationDuplicateItem, []*Operation{&q.h.Ops[e], f, op},
			"item %q of queue %s was dequeued twice: by %s at %s and by %s at %s",
			item, q.key, f.Client, fmtTime(f.Return), op.Client, fmtTime(op.Return))
		return
	}
	q.deq[item] = i
}

// judge finds the items lost before the last drain. A dequeue of unknown
// outcome called before the drain's look returned may have taken one item,
// whichever: so the items never delivered are lost when they outnumber
// such dequeues, and the violation names them all.
func (q *queueRun) judge() {
	if q.drained < 0 {
		return
	}
	look := &q.h.Ops[q.drained]
	var missing []string
	for item, e := range q.enq {
		en := &q.h.Ops[e]
		if _, ok := q.deq[item]; !ok && en.Outcome == OutcomeOK && en.Return < look.Call {
			missing = append(missing, item)
		}
	}
	slices.Sort(missing)
	takers := 0
	for _, u := range q.unknown {
		if q.h.Ops[u].Call < look.Return {
			takers++
		}
	}
	if len(missing) <= takers {
		q.unseen += len(missing)
		return
	}
	q.unseen += takers
	ops := []*Operation{}
	for _, item := range missing {
		ops = append(ops, &q.h.Ops[q.enq[item]])
	}
	ops = append(ops, look)
	q.rep.violation(ViolationLostItem, ops,
		"%s of queue %s never dequeued (%s), although %s saw the queue empty at %s; only %s of unknown outcome could have taken one each",
		plural(len(missing), "item"), q.key, shortList(missing), look.Client, fmtTime(look.Return), plural(takers, "dequeue"))
}
