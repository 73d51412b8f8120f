package lock

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): a waiter that can miss its wake-up. The recipe is
// the queue of the etcd documentation — a key per holder, the lowest create
// revision holds, each waiter watches the key just ahead of it — but the
// waiter reads its predecessor and then starts a watch on it from "now",
// with no revision, as most first drafts of the recipe do. Whatever happens
// between the read and the moment etcd registers the watch is never seen:
// a predecessor that releases in that gap is deleted before the watch
// begins, its delete event is missed, and the waiter waits for a delete
// that has already happened — until its context ends. The lock is free and
// wanted all that time, and the next client queues behind the stuck waiter.
// The gap is the time the client takes to open a watch stream and register
// the watch — a few round trips, longer on a loaded machine — so it takes a
// waiter that enqueues just as its predecessor releases: two clients whose
// think time equals their hold time. Watching from the revision of the read plus one (WithRev), as
// waitTurn does, is the fix. A liveness failure, not a safety one. Shown
// by the scenario lock/missed-wakeup/contention.
//
// newMissedWakeup returns the recipe's Locker for the lock called name.
func newMissedWakeup(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &missedWakeup{cli: cli, pfx: pfx, ttl: ttl}, nil
}

// missedWakeup is the queue recipe whose waiter watches its predecessor
// from the revision etcd is at when the watch starts.
type missedWakeup struct {
	cli   *clientv3.Client
	pfx   string
	ttl   time.Duration
	wakes atomic.Int64 // watch events received by this Locker's waiters
}

var _ Locker = (*missedWakeup)(nil)

// Lock enqueues like the queue recipe and waits for its turn, watching
// each predecessor from "now". On failure the lease is revoked, which
// removes the key.
func (l *missedWakeup) Lock(ctx context.Context) (Held, error) {
	g, err := grant(ctx, l.cli, l.pfx, l.ttl)
	if err != nil {
		return nil, err
	}
	key, rev, err := enqueue(ctx, l.cli, l.pfx, g.ID())
	if err == nil {
		err = l.waitTurn(ctx, key, rev)
	}
	if err != nil {
		abandon(ctx, g)
		return nil, err
	}
	return &held{
		cli: l.cli, key: key, rev: rev, token: rev, lease: g.ID(), done: g.Done(),
		release: func(ctx context.Context) error { return releaseKept(ctx, l.cli, g, key, rev) },
	}, nil
}

// waitTurn is the queue's waitTurn with the watch started late.
func (l *missedWakeup) waitTurn(ctx context.Context, key string, rev int64) error {
	predecessor := append(clientv3.WithLastCreate(), clientv3.WithMaxCreateRev(rev-1))
	for {
		resp, err := l.cli.Txn(ctx).Then(
			clientv3.OpGet(key),
			clientv3.OpGet(l.pfx+"/", predecessor...),
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
		if err := l.waitDeleted(ctx, pred); err != nil {
			return fmt.Errorf("lock: %s: wait for %s: %w", key, pred, err)
		}
	}
}

// waitDeleted watches key until it is deleted: from whatever revision etcd
// is at when the watch is registered, not from the read that found key.
func (l *missedWakeup) waitDeleted(ctx context.Context, key string) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	for wr := range l.cli.Watch(wctx, key, clientv3.WithFilterPut()) { // the mistake: no WithRev
		if err := wr.Err(); err != nil {
			return err
		}
		for _, ev := range wr.Events {
			l.wakes.Add(1)
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
