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
//
// It may also have a method Close() error, which the scenarios call once
// when the simulated process it stands for crashes and at the end of the
// run, to stop what the recipe started for it; what Close does wrong, and
// goroutines the recipe leaves behind, are the recipe's fault, by the
// rules lock.Locker's documentation gives.
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
