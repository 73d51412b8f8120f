package lock

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// herd is the queue recipe whose waiters watch the whole prefix instead of
// their predecessor, and look again at the queue after every change.
//
// It is correct but wasteful — the herd effect, which the lock recipe of
// the etcd documentation (and ZooKeeper's before it) avoids by having each
// waiter watch only the key just ahead of it. The oldest key holds, so no
// checker faults it; but each release, each
// expired lease and each new waiter wakes every waiter, and each of them
// reads the queue again: with n waiters an acquisition costs n wakeups
// and n reads instead of one, and a crashed holder wakes them all at
// once. Counted by Wakeups; shown by TestHerdWakesEveryWaiter.
type herd struct {
	cli   *clientv3.Client
	pfx   string
	ttl   time.Duration
	wakes atomic.Int64 // watch events received by this Locker's waiters
}

var (
	_ Locker      = (*herd)(nil)
	_ WakeCounter = (*herd)(nil)
)

func newHerd(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &herd{cli: cli, pfx: pfx, ttl: ttl}, nil
}

// Wakeups returns the watch events this Locker's waiters have received.
func (l *herd) Wakeups() int64 { return l.wakes.Load() }

// Lock enqueues, then re-reads the oldest key after every change under the
// prefix until it is ours.
func (l *herd) Lock(ctx context.Context) (Held, error) {
	g, err := grant(ctx, l.cli, l.pfx, l.ttl)
	if err != nil {
		return nil, err
	}
	key, rev, err := enqueue(ctx, l.cli, l.pfx, g.ID())
	if err == nil {
		err = l.waitOldest(ctx, key, rev)
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

func (l *herd) waitOldest(ctx context.Context, key string, rev int64) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	changes := l.cli.Watch(wctx, l.pfx+"/", clientv3.WithPrefix(), clientv3.WithRev(rev+1))
	for {
		resp, err := l.cli.Txn(ctx).Then(
			clientv3.OpGet(key),
			clientv3.OpGet(l.pfx+"/", clientv3.WithFirstCreate()...),
		).Commit()
		if err != nil {
			return fmt.Errorf("lock: %s: read queue: %w", key, err)
		}
		if len(resp.Responses[0].GetResponseRange().Kvs) == 0 {
			return fmt.Errorf("%w: %s: key gone while waiting", ErrLeaseExpired, key)
		}
		if first := resp.Responses[1].GetResponseRange().Kvs; first[0].CreateRevision == rev {
			return nil
		}
		wr, ok := <-changes // the mistake: any change wakes us
		if !ok || wr.Err() != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
			return fmt.Errorf("lock: %s: watch queue: %v", key, wr.Err())
		}
		l.wakes.Add(int64(len(wr.Events)))
	}
}
