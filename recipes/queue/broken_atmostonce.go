package queue

import (
	"context"
	"fmt"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"
	recipes "go.etcd.io/etcd/client/v3/experimental/recipes"

	"github.com/etcdsim/etcdsim/internal/ctxview"
)

// BROKEN (deliberately): etcd's recipes.Queue, unmodified, trusted as a
// work queue that loses nothing. Its Dequeue claims the first item by
// deleting it; when the delete commits and its answer is lost — the
// consumer cut off, the member it spoke to killed, its deadline reached —
// Dequeue returns an error, the consumer holds nothing, and the item is
// gone from the queue: no consumer will ever see it. Delivery is at most
// once, and the recipe's documentation does not say so. Shown by the
// scenario queue/at-most-once/lost-claim.
func newAtMostOnce(cli *clientv3.Client, name string) (Queue, error) {
	if err := check(cli, name); err != nil {
		return nil, err
	}
	return &etcdQueue{cli: cli, key: DefaultPrefix + name}, nil
}

// etcdQueue is etcd's recipes.Queue or PriorityQueue on a ctxview.View of
// the client: each call runs the recipe unmodified, its requests bound to
// the call's context. Safe for concurrent use: each call has a view of its
// own.
type etcdQueue struct {
	cli      *clientv3.Client
	key      string // the name etcd's recipe is given
	priority bool   // recipes.PriorityQueue, not recipes.Queue
	requests atomic.Int64
}

var _ PriorityQueue = (*etcdQueue)(nil)

func (q *etcdQueue) view(ctx context.Context) *clientv3.Client {
	v := ctxview.New(q.cli, &q.requests)
	v.Use(ctx)
	return v.Client()
}

// Enqueue puts item on the queue, of priority 0 for a priority queue.
func (q *etcdQueue) Enqueue(ctx context.Context, item string) error {
	return q.EnqueuePriority(ctx, item, 0)
}

// EnqueuePriority puts item on the queue; a FIFO queue ignores priority.
func (q *etcdQueue) EnqueuePriority(ctx context.Context, item string, priority uint16) error {
	if err := checkItem(q.key, item); err != nil {
		return err
	}
	var err error
	if q.priority {
		err = recipes.NewPriorityQueue(q.view(ctx), q.key).Enqueue(item, priority)
	} else {
		err = recipes.NewQueue(q.view(ctx), q.key).Enqueue(item)
	}
	if err != nil {
		return fmt.Errorf("queue: %s: enqueue %q: %w", q.key, item, err)
	}
	return nil
}

// Dequeue takes the first item. The recipe dereferences the event its
// wait returns, and a wait cut short (its context ended, or its watch was
// compacted) returns none: that panic is turned into ctx's error, or an
// error saying so.
func (q *etcdQueue) Dequeue(ctx context.Context) (item string, err error) {
	defer func() {
		if p := recover(); p != nil {
			if ctx.Err() != nil {
				item, err = "", fmt.Errorf("queue: %s: dequeue: %w", q.key, context.Cause(ctx))
				return
			}
			item, err = "", fmt.Errorf("queue: %s: dequeue: the recipe's wait ended without an event (a compacted watch?): %v", q.key, p)
		}
	}()
	if q.priority {
		item, err = recipes.NewPriorityQueue(q.view(ctx), q.key).Dequeue()
	} else {
		item, err = recipes.NewQueue(q.view(ctx), q.key).Dequeue()
	}
	if err != nil {
		return "", fmt.Errorf("queue: %s: dequeue: %w", q.key, err)
	}
	return item, nil
}

// Pending counts the items waiting.
func (q *etcdQueue) Pending(ctx context.Context) (int, error) { return pending(ctx, q.cli, q.key+"/") }
