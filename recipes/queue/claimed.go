package queue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"
	recipes "go.etcd.io/etcd/client/v3/experimental/recipes"

	"github.com/etcdsim/etcdsim/internal/ctxview"
)

// Claimed is a queue on etcd's own keys whose consumer claims an item by
// moving it, in one transaction, from the queue to a claim record of its
// own: if the item still has the mod revision the consumer read, delete it
// and put the record; else read the record. When the answer is lost the
// consumer keeps the claim and, at its next Dequeue, sends the same
// transaction again: it commits if the first never did, or finds the
// record the first wrote, or finds neither when another consumer took the
// item first — which rules the first out for good, since the item's
// revision can never come back. Every item reaches a consumer that knows
// it has it, once.
//
// Items are put by etcd's recipes unmodified: recipes.Queue's Enqueue
// (Claimed, FIFO by create revision) or recipes.PriorityQueue's
// (PriorityClaimed, by key: priority, then sequence).
//
// The Dequeue calls of one Claimed run one at a time. A process that
// crashes with a claim unsettled loses that item: the claim lives in its
// memory only.
type Claimed struct {
	cli      *clientv3.Client
	name     string
	items    string       // the prefix of the queue's items
	records  string       // the prefix of this queue's claim records
	byKey    bool         // first means lowest key (priority), not oldest
	requests atomic.Int64 // requests of etcd's recipes (Enqueue)
	claims   atomic.Int64 // claims made, as n, for whoever watches

	mu      sync.Mutex // held through Dequeue; guards owner, n, pending and done
	owner   string     // this consumer's name among the queue's, drawn from etcd
	n       int        // claims made
	pending *claim     // a claim whose answer was lost, settled first
	done    string     // the record of the last item delivered, deleted by the next claim; "" if none
}

// claim is one attempt to take an item.
type claim struct {
	key    string // the item's key
	rev    int64  // its mod revision when read
	value  string // the item
	record string // the claim record's key
}

var (
	_ Queue         = (*Claimed)(nil)
	_ PriorityQueue = (*Claimed)(nil)
)

// NewClaimed returns the FIFO queue called name of client cli.
func NewClaimed(cli *clientv3.Client, name string) (Queue, error) {
	return newClaimed(cli, name, false)
}

// NewPriorityClaimed returns the priority queue called name of client cli.
func NewPriorityClaimed(cli *clientv3.Client, name string) (Queue, error) {
	return newClaimed(cli, name, true)
}

func newClaimed(cli *clientv3.Client, name string, byKey bool) (*Claimed, error) {
	if err := check(cli, name); err != nil {
		return nil, err
	}
	return &Claimed{cli: cli, name: name, items: DefaultPrefix + name + "/", records: claimPrefix + name + "/", byKey: byKey}, nil
}

// view is a view of the client bound to ctx, for etcd's recipes.
func (q *Claimed) view(ctx context.Context) *clientv3.Client {
	v := ctxview.New(q.cli, &q.requests)
	v.Use(ctx)
	return v.Client()
}

// Enqueue puts item on the queue, of priority 0 for a priority queue.
func (q *Claimed) Enqueue(ctx context.Context, item string) error {
	return q.EnqueuePriority(ctx, item, 0)
}

// EnqueuePriority puts item on the queue; a FIFO queue ignores priority.
func (q *Claimed) EnqueuePriority(ctx context.Context, item string, priority uint16) error {
	if err := checkItem(q.items, item); err != nil {
		return err
	}
	var err error
	if q.byKey {
		err = recipes.NewPriorityQueue(q.view(ctx), DefaultPrefix+q.name).Enqueue(item, priority)
	} else {
		err = recipes.NewQueue(q.view(ctx), DefaultPrefix+q.name).Enqueue(item)
	}
	if err != nil {
		return fmt.Errorf("queue: %s: enqueue %q: %w", q.items, item, err)
	}
	return nil
}

// Pending counts the items waiting.
func (q *Claimed) Pending(ctx context.Context) (int, error) { return pending(ctx, q.cli, q.items) }

// Dequeue settles a claim left from a call whose answer was lost, then
// claims the first item, waiting for one if there is none.
func (q *Claimed) Dequeue(ctx context.Context) (string, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.owner == "" {
		// Each put has a revision of its own: a name no other consumer has.
		resp, err := q.cli.Put(ctx, q.records+"owners", "")
		if err != nil {
			return "", fmt.Errorf("queue: %s: dequeue: naming the consumer: %w", q.items, err)
		}
		q.owner = strconv.FormatInt(resp.Header.Revision, 10)
	}
	for {
		if q.pending != nil {
			item, ok, err := q.settle(ctx, *q.pending)
			if err != nil {
				return "", fmt.Errorf("queue: %s: dequeue: claim of %s unsettled: %w", q.items, q.pending.key, err)
			}
			q.pending = nil
			if ok {
				return item, nil
			}
		}
		order := clientv3.SortByCreateRevision
		if q.byKey {
			order = clientv3.SortByKey
		}
		resp, err := q.cli.Get(ctx, q.items, clientv3.WithPrefix(), clientv3.WithSort(order, clientv3.SortAscend), clientv3.WithLimit(1))
		if err != nil {
			return "", fmt.Errorf("queue: %s: dequeue: %w", q.items, err)
		}
		if len(resp.Kvs) == 0 {
			if err := q.wait(ctx, resp.Header.Revision); err != nil {
				return "", err
			}
			continue
		}
		kv := resp.Kvs[0]
		q.n++
		q.claims.Add(1)
		q.pending = &claim{key: string(kv.Key), rev: kv.ModRevision, value: string(kv.Value),
			record: q.records + q.owner + "/" + strconv.Itoa(q.n)}
	}
}

// settle sends c's transaction: true and the item if this consumer holds
// it now, false if another took it first. A claim that commits also
// deletes the record of the item delivered before, whose work is done.
func (q *Claimed) settle(ctx context.Context, c claim) (string, bool, error) {
	then := []clientv3.Op{clientv3.OpDelete(c.key), clientv3.OpPut(c.record, c.value)}
	if q.done != "" && q.done != c.record {
		then = append(then, clientv3.OpDelete(q.done))
	}
	resp, err := q.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(c.key), "=", c.rev)).
		Then(then...).
		Else(clientv3.OpGet(c.record)).
		Commit()
	if err != nil {
		return "", false, err
	}
	if !resp.Succeeded {
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) == 0 {
			return "", false, nil
		}
		// An earlier attempt committed, and deleted q.done with it.
	}
	q.done = c.record
	return c.value, true, nil
}

// wait returns once the queue may hold an item put after rev, or ctx ends.
func (q *Claimed) wait(ctx context.Context, rev int64) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for wr := range q.cli.Watch(wctx, q.items, clientv3.WithPrefix(), clientv3.WithRev(rev+1), clientv3.WithFilterDelete()) {
		if wr.Err() != nil || len(wr.Events) > 0 {
			return nil // an item came, or the watch broke (compacted): read again
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("queue: %s: dequeue: %w", q.items, context.Cause(ctx))
	}
	return errors.New("queue: " + q.items + ": dequeue: the watch closed")
}
