package queue

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): a consumer that reads the first item and deletes
// its key, without comparing the revision it read. The delete always
// "succeeds" — deleting a key already gone is no error in etcd — so two
// consumers that read the same first item both return it. The natural
// mistake of a hand-written queue: a Get and a Delete where a transaction
// belongs. Shown by the scenario queue/unconditional-claim/contention.
func newUnconditionalClaim(cli *clientv3.Client, name string) (Queue, error) {
	q, err := newClaimed(cli, name, false)
	if err != nil {
		return nil, err
	}
	return &unconditional{Claimed: q}, nil
}

// unconditional enqueues as Claimed does and dequeues with a Get and a
// Delete.
type unconditional struct {
	*Claimed
}

// Dequeue takes the first item it reads, waiting for one if there is none.
func (q *unconditional) Dequeue(ctx context.Context) (string, error) {
	for {
		resp, err := q.cli.Get(ctx, q.items, clientv3.WithPrefix(),
			clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend), clientv3.WithLimit(1))
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
		if _, err := q.cli.Delete(ctx, string(kv.Key)); err != nil {
			return "", fmt.Errorf("queue: %s: dequeue: %w", q.items, err)
		}
		return string(kv.Value), nil
	}
}
