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

// QueueDelivery checks that a queue delivers what it was given, once,
// and loses nothing, and that a priority queue serves its higher
// priorities first. Per queue Key:
//   - every item an ok dequeue returned had an enqueue of it called before
//     the dequeue returned (else ViolationPhantomItem, naming the item);
//   - no item was returned by two ok dequeues (ViolationDuplicateItem);
//   - once a drain saw the queue empty (an ok dequeue with
//     Output.Empty), every item whose enqueue returned ok before that
//     look was called had been returned by an ok dequeue (else
//     ViolationLostItem). A dequeue of unknown outcome delivers nothing:
//     its consumer holds no item, whatever the queue did. An item it may
//     have claimed is lost to the application, and the violation says how
//     many such dequeues there were. An item whose enqueue's outcome is
//     unknown may or may not exist: it is never counted lost;
//   - priority order, judged as far as concurrency lets it be decided
//     (see QueueDelivery's priority rule below; ViolationPriorityInversion).
//
// Priorities: an enqueue's Input.Priority is the item's priority, lower
// served first, as etcd's PriorityQueue orders its keys; a FIFO queue
// records 0 for every item, and the rule never fires. A dequeue D that
// returned item x inverts priority when some item y of a strictly lower
// Priority was enqueued ok before D began and was returned by an ok dequeue
// that began after D returned: y was in the queue for all of D, and D
// passed it over. A dequeue begins at its call, or at the call of the
// first of the dequeues of unknown outcome its client made just before
// it: a recipe that settles a claim whose answer was lost delivers, in the
// next call, what it claimed in an earlier one. That much is decidable from the history alone. An
// item never delivered is not used as a witness: it may have been taken
// by a dequeue whose answer was lost, or lost, which the loss rule judges.
// Nor is an item whose taker overlapped D: either may have claimed first.
// Nothing is promised of the order within one priority: with several
// producers and consumers a FIFO queue's order is defined only between an
// enqueue that returned before another was called, and etcd's recipe
// orders by the revision its key was created at.
//
// Invalid: what History.Validate rejects, an enqueue without an item, two
// enqueues of one item on one queue, an ok dequeue with neither an item nor
// Empty, or with both. The verdict is unknown, without a violation, when no drain saw a
// queue empty after its last ok enqueue: loss cannot be judged then.
//
// Cost: O(n log n + n·p) for n operations and p distinct priorities.
func QueueDelivery(h History, opts QueueOptions) Result {
	rep := newReport(CheckerQueueDelivery, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	keys, groups := groupByKey(&h, KindEnqueue, KindDequeue)
	var undecided string
	items, delivered, unknown := 0, 0, 0
	for _, key := range keys {
		q := queueRun{h: &h, rep: rep, key: key, enq: map[string]int{}, deq: map[string]int{}}
		if err := q.collect(groups[key]); err != nil {
			return rep.invalid(err)
		}
		q.judge()
		q.judgePriorities()
		items += len(q.enq)
		delivered += len(q.deq)
		unknown += len(q.unknown)
		if q.drained < 0 && len(q.enq) > 0 && undecided == "" {
			undecided = sprintf("queue %s was never seen empty after its last enqueue: loss cannot be judged", key)
		}
	}
	m := rep.res.Metrics
	m["queues"] = float64(len(keys))
	m["items"] = float64(items)
	m["delivered"] = float64(delivered)
	m["unknown_dequeues"] = float64(unknown)
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
		case op.Output.Empty && op.Output.Value != "":
			return invalidOp(op, "ok dequeue with both an item (Output.Value) and Output.Empty")
		case op.Output.Empty:
			if q.drained < 0 || op.Call > q.h.Ops[q.drained].Call {
				q.drained = i
			}
		case op.Output.Value == "":
			return invalidOp(op, "ok dequeue with neither an item (Output.Value) nor Output.Empty")
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

// judge finds the items lost before the last drain: enqueued ok before
// the drain's look, never returned by an ok dequeue.
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
	if len(missing) == 0 {
		return
	}
	slices.Sort(missing)
	takers := 0
	for _, u := range q.unknown {
		if q.h.Ops[u].Call < look.Return {
			takers++
		}
	}
	ops := []*Operation{}
	for _, item := range missing {
		ops = append(ops, &q.h.Ops[q.enq[item]])
	}
	ops = append(ops, look)
	why := "no dequeue's answer was lost"
	over := q.overwritten(missing, look)
	switch {
	case len(over) > 0:
		why = over[0].sentence(q.h)
		if len(over) > 1 {
			why += sprintf(", and %s like it", plural(len(over)-1, "more item"))
		}
		if takers > 0 && len(over) < len(missing) {
			why += sprintf("; for the rest, %s of unknown outcome may have claimed them and delivered them to no one", plural(takers, "dequeue"))
		}
		ops = append(ops, over[0].put, over[0].by)
	case takers > 0:
		why = sprintf("%s of unknown outcome may have claimed some and delivered them to no one", plural(takers, "dequeue"))
	}
	q.rep.violation(ViolationLostItem, ops,
		"%s of queue %s never delivered (%s), although %s saw the queue empty at %s; %s",
		plural(len(missing), "item"), q.key, shortList(missing), look.Client, fmtTime(look.Return), why)
}

// overwrite is an item whose key a later put replaced before anyone
// dequeued it: the enqueue's put and the put that came after on its key.
type overwrite struct {
	item    string
	put, by *Operation
}

func (o overwrite) sentence(h *History) string {
	return sprintf("item %s was overwritten, not dequeued: %s's enqueue wrote it to key %s (op %d at %s), and %s put the same key again at %s (op %d) before anyone took it — "+
		"a producer that puts each item on one fixed key replaces the item before it; give each item a key of its own (a sequential key, as etcd's queue recipe does)",
		o.item, processOf(o.put.Client), o.put.Key, o.put.ID, fmtTime(o.put.Call), processOf(o.by.Client), fmtTime(o.by.Call), o.by.ID)
}

// overwritten returns, of the missing items, those whose enqueue wrote a
// key (a put, as the clients' connections recorded it, made by the
// enqueuing process while the enqueue ran) that a later put replaced
// before look, the drain that found the queue empty.
func (q *queueRun) overwritten(missing []string, look *Operation) []overwrite {
	byKey := map[string][]*Operation{}
	var puts []*Operation
	for i := range q.h.Calls {
		op := &q.h.Calls[i]
		if op.Kind == KindPut && op.Outcome != OutcomeFailed {
			puts = append(puts, op)
			byKey[op.Key] = append(byKey[op.Key], op)
		}
	}
	if len(puts) == 0 {
		return nil
	}
	var out []overwrite
	for _, item := range missing {
		en := &q.h.Ops[q.enq[item]]
		var put *Operation
		for _, p := range puts {
			if p.Outcome == OutcomeOK && processOf(p.Client) == processOf(en.Client) && p.Call >= en.Call && p.Return <= en.Return {
				put = p
			}
		}
		if put == nil {
			continue
		}
		for _, later := range byKey[put.Key] {
			if later.ID != put.ID && later.Call > put.Return && later.Call < look.Call {
				out = append(out, overwrite{item: item, put: put, by: later})
				break
			}
		}
	}
	return out
}
