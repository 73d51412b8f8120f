// Package queue holds queue recipes on etcd, built on the unmodified
// client/v3/experimental/recipes.Queue and PriorityQueue, behind one
// small interface so that a user's own queue can be judged the same way.
//
// etcd's Queue puts each item under a key named by the time it was
// enqueued, its PriorityQueue under a key named by the item's priority and
// a sequence number; a consumer claims the first by deleting it with a
// transaction that compares its mod revision. A Dequeue whose delete
// committed but whose answer was lost has taken the item from everyone
// and given it to no one: delivery is at most once (see
// TestLostDequeueAnswer, and pitfall 19 of docs/pitfalls.md). The correct
// recipes here keep etcd's keys but claim an item by moving it to a
// record of the consumer's, in one transaction that a consumer can try
// again after a lost answer and learn what it got.
//
//	r, err := queue.Lookup("claimed")
//	q, err := r.New(cli, "jobs")
//	err = q.Enqueue(ctx, "job-1")
//	item, err := q.Dequeue(ctx) // blocks until an item comes or ctx ends
package queue

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Sentinel errors. The errors the package returns wrap them with the
// queue or item involved, so test them with errors.Is.
var (
	// ErrBadName is returned for a queue asked for with an empty name.
	ErrBadName = errors.New("queue: empty queue name")
	// ErrBadItem is returned by Enqueue for an empty item.
	ErrBadItem = errors.New("queue: empty item")
	// ErrUnknownRecipe is returned by Lookup for a name not registered.
	ErrUnknownRecipe = errors.New("queue: no recipe named")
)

// Queue is a named queue of one client. Every call takes a context and
// returns once it ends.
type Queue interface {
	// Enqueue puts item on the queue.
	Enqueue(ctx context.Context, item string) error
	// Dequeue takes the first item, waiting for one if there is none. An
	// error means the caller holds no item; whether the queue still holds
	// it depends on the recipe.
	Dequeue(ctx context.Context) (string, error)
	// Pending reads, linearizably, how many items wait: a drain's look.
	Pending(ctx context.Context) (int, error)
}

// PriorityQueue is a Queue whose items carry a priority: Dequeue takes an
// item of the lowest priority number waiting, as etcd's PriorityQueue
// does. Its Enqueue puts an item of priority 0.
type PriorityQueue interface {
	Queue
	EnqueuePriority(ctx context.Context, item string, priority uint16) error
}

// DefaultPrefix is where queue keys live: the items of queue name under
// DefaultPrefix+name+"/".
const DefaultPrefix = "etcdsim/queue/"

// claimPrefix is where the correct recipes keep their consumers' claim
// records, apart from every queue's items.
const claimPrefix = "etcdsim/queue-claims/"

// check is what every constructor checks of its arguments.
func check(cli *clientv3.Client, name string) error {
	switch {
	case cli == nil:
		return fmt.Errorf("queue: %q: nil client", name)
	case name == "":
		return fmt.Errorf("%w: want a name such as \"jobs\"", ErrBadName)
	}
	return nil
}

// checkItem refuses an empty item.
func checkItem(pfx, item string) error {
	if item == "" {
		return fmt.Errorf("%w: queue %s: want a non-empty item", ErrBadItem, pfx)
	}
	return nil
}

// pending counts the keys under pfx with a linearizable read.
func pending(ctx context.Context, cli *clientv3.Client, pfx string) (int, error) {
	resp, err := cli.Get(ctx, pfx, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("queue: %s: pending: %w", pfx, err)
	}
	return int(resp.Count), nil
}
