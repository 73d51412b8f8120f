package lock

import (
	"context"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): "a lock without a lease",
// as in hashicorp/vault #2526 (2017), where an etcd3 lock of an instance
// that shut down improperly stayed in etcd without a lease and blocked
// every other instance. The lock is safe while everyone is healthy and
// releases properly, but nothing ties the key to the holder's liveness: a
// holder that crashes or is cut off for good never deletes it, and no one
// else ever will. A liveness failure, not a safety one. Done never closes,
// since nothing could tell. Shown by the scenario lock/setnx/crash-holder.
//
// newSetNX returns the recipe's Locker for the lock called name.
func newSetNX(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	pfx, _, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &setnx{cli: cli, key: pfx, id: fmt.Sprintf("locker-%d", lockerIDs.Add(1))}, nil
}

// setnx is a lock taken by creating the lock's own key if it is absent,
// Redis SETNX style, with no lease.
type setnx struct {
	cli *clientv3.Client
	key string
	id  string // written as the key's value, to show who holds it
}

var _ Locker = (*setnx)(nil)

// Lock creates the key if it is absent; otherwise it waits for the key to
// be deleted and tries again.
func (l *setnx) Lock(ctx context.Context) (Held, error) {
	for {
		resp, err := l.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(l.key), "=", 0)).
			Then(clientv3.OpPut(l.key, l.id)). // the mistake: no lease
			Commit()
		if err != nil {
			return nil, fmt.Errorf("lock: %s: put if absent: %w", l.key, err)
		}
		if resp.Succeeded {
			rev := resp.Header.Revision
			return &held{
				cli: l.cli, key: l.key, rev: rev, token: rev, done: make(chan struct{}),
				release: func(ctx context.Context) error { return l.release(ctx, rev) },
			}, nil
		}
		if err := l.waitDelete(ctx, resp.Header.Revision+1); err != nil {
			return nil, err
		}
	}
}

func (l *setnx) waitDelete(ctx context.Context, from int64) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	for wr := range l.cli.Watch(wctx, l.key, clientv3.WithRev(from), clientv3.WithFilterPut()) {
		if err := wr.Err(); err != nil {
			return fmt.Errorf("lock: %s: watch: %w", l.key, err)
		}
		for _, ev := range wr.Events {
			if ev.Type == mvccpb.DELETE {
				return nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("lock: %s: still held: %w", l.key, err)
	}
	return fmt.Errorf("lock: %s: watch closed", l.key)
}

// release deletes the key if it is still the one this holder created.
// The delete is guarded, so it is retried after a transport error; a retry
// that finds the key gone assumes the lost attempt deleted it.
func (l *setnx) release(ctx context.Context, rev int64) error {
	var held, unsure bool
	err := retryIdempotent(ctx, func(ctx context.Context) error {
		resp, err := l.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(l.key), "=", rev)).
			Then(clientv3.OpDelete(l.key)).
			Commit()
		if err != nil {
			unsure = true
			return err
		}
		held = resp.Succeeded
		return nil
	})
	switch {
	case err != nil:
		return fmt.Errorf("lock: unlock %s: %w", l.key, err)
	case !held && !unsure:
		return fmt.Errorf("%w: %s: deleted by someone else", ErrNotHeld, l.key)
	}
	return nil
}
