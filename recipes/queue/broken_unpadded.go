package queue

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): a priority queue whose keys carry the priority
// as plain decimal text, "jobs/2/…", "jobs/10/…", and whose consumer
// takes the lowest key, as etcd's PriorityQueue does with its five-digit,
// zero-padded numbers. etcd sorts keys as bytes: "10" comes before "2",
// so an item of priority 10 is served while one of priority 2 waits.
// Claims are Claimed's, so nothing is lost or duplicated; only the order
// is wrong. Shown by the scenario queue/unpadded-priority/backlog.
func newUnpaddedPriority(cli *clientv3.Client, name string) (Queue, error) {
	q, err := newClaimed(cli, name, true)
	if err != nil {
		return nil, err
	}
	return &unpadded{Claimed: q}, nil
}

// unpadded dequeues as Claimed does, by key, and enqueues under
// unpadded priorities.
type unpadded struct {
	*Claimed
}

var _ PriorityQueue = (*unpadded)(nil)

// Enqueue puts item on the queue at priority 0.
func (q *unpadded) Enqueue(ctx context.Context, item string) error {
	return q.EnqueuePriority(ctx, item, 0)
}

// EnqueuePriority puts item under "<priority>/<create order>": a
// put-if-absent of a key named by the next revision-ordered number the
// caller reads, tried again if another producer took it.
func (q *unpadded) EnqueuePriority(ctx context.Context, item string, priority uint16) error {
	if err := checkItem(q.items, item); err != nil {
		return err
	}
	pfx := fmt.Sprintf("%s%d/", q.items, priority)
	for {
		resp, err := q.cli.Get(ctx, q.items, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			return fmt.Errorf("queue: %s: enqueue %q: %w", q.items, item, err)
		}
		key := fmt.Sprintf("%s%016d", pfx, resp.Header.Revision)
		txn, err := q.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, item)).Commit()
		if err != nil {
			return fmt.Errorf("queue: %s: enqueue %q: %w", q.items, item, err)
		}
		if txn.Succeeded {
			return nil
		}
	}
}
