package lock

import (
	"context"
	"fmt"
	"sync/atomic"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// The queue is the lock recipe of the etcd documentation, written out: each
// holder puts a key of its own under the lock's prefix, bound to its lease;
// the key with the lowest create revision holds the lock; every other
// waiter watches only the key just ahead of it (its predecessor) and looks
// again when that key is deleted. A release or an expired lease deletes one
// key and so wakes exactly one waiter.

// enqueue puts the holder's key, bound to lease, under pfx and returns the
// key and its create revision. The lease is new, so the key is too.
func enqueue(ctx context.Context, cli *clientv3.Client, pfx string, lease clientv3.LeaseID) (string, int64, error) {
	key := fmt.Sprintf("%s/%x", pfx, lease)
	resp, err := cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, "", clientv3.WithLease(lease))).
		Commit()
	if err != nil {
		return "", 0, fmt.Errorf("lock: %s: enqueue: %w", key, err)
	}
	if !resp.Succeeded {
		return "", 0, fmt.Errorf("lock: %s: enqueue: the key of a new lease exists already", key)
	}
	return key, resp.Header.Revision, nil
}

// queueUp enqueues the holder's key on lease and waits for its turn: the
// queue recipe's Lock up to what it does when that fails, which is where
// the recipes here differ.
func queueUp(ctx context.Context, cli *clientv3.Client, pfx string, lease clientv3.LeaseID, wakes *atomic.Int64) (string, int64, error) {
	key, rev, err := enqueue(ctx, cli, pfx, lease)
	if err == nil {
		err = waitTurn(ctx, cli, pfx, key, rev, wakes)
	}
	return key, rev, err
}

// waitTurn blocks until key (create revision rev) is the oldest key under
// pfx. Each round reads the key itself and its predecessor in one
// transaction, then watches the predecessor until it is deleted; each
// event received is counted in wakes. A missing key means the lease
// expired: an error wrapping ErrLeaseExpired.
func waitTurn(ctx context.Context, cli *clientv3.Client, pfx, key string, rev int64, wakes *atomic.Int64) error {
	predecessor := append(clientv3.WithLastCreate(), clientv3.WithMaxCreateRev(rev-1))
	for {
		resp, err := cli.Txn(ctx).Then(
			clientv3.OpGet(key),
			clientv3.OpGet(pfx+"/", predecessor...),
		).Commit()
		if err != nil {
			return fmt.Errorf("lock: %s: find predecessor: %w", key, err)
		}
		if len(resp.Responses[0].GetResponseRange().Kvs) == 0 {
			return fmt.Errorf("%w: %s: key gone while waiting", ErrLeaseExpired, key)
		}
		preds := resp.Responses[1].GetResponseRange().Kvs
		if len(preds) == 0 {
			return nil
		}
		pred := string(preds[0].Key)
		if err := waitDeleted(ctx, cli, pred, resp.Header.Revision+1, wakes); err != nil {
			return fmt.Errorf("lock: %s: wait for %s: %w", key, pred, err)
		}
	}
}

// waitDeleted watches key from revision from until it is deleted.
func waitDeleted(ctx context.Context, cli *clientv3.Client, key string, from int64, wakes *atomic.Int64) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	for wr := range cli.Watch(wctx, key, clientv3.WithRev(from), clientv3.WithFilterPut()) {
		if err := wr.Err(); err != nil {
			return err
		}
		for _, ev := range wr.Events {
			wakes.Add(1)
			if ev.Type == mvccpb.DELETE {
				return nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("watch closed")
}
