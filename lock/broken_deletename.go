package lock

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
)

// BROKEN (deliberately): "a release by someone who
// does not hold the lock", against the symmetry property of the lock
// document: only the holder can release a lock, and a release frees only
// what the releaser held. Deleting by name is the natural mistake when
// the lock is thought of as one thing ("unlock foo") rather than as a
// queue of keys. A waiter whose context ends cleans up with that delete
// and removes the holder's key with its own; the next client finds the
// queue empty and takes the lock while the holder, whose lease is fine,
// goes on working. Two holders on a healthy cluster. Shown by the
// scenario lock/delete-name/impatient-waiter.
//
// newDeleteName returns the recipe's Locker for the lock called name.
func newDeleteName(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &deleteName{cli: cli, pfx: pfx, ttl: ttl}, nil
}

// deleteName is the queue recipe whose release, and whose clean-up after a
// Lock that gave up, deletes the lock's name (every key under its prefix)
// instead of the client's own key.
type deleteName struct {
	cli   *clientv3.Client
	pfx   string
	ttl   time.Duration
	wakes atomic.Int64 // watch events received by this Locker's waiters
}

var _ Locker = (*deleteName)(nil)

// Lock enqueues and waits like the queue recipe; if that fails it cleans
// up by deleting the lock's name.
func (l *deleteName) Lock(ctx context.Context) (Held, error) {
	g, err := grant(ctx, l.cli, l.pfx, l.ttl)
	if err != nil {
		return nil, err
	}
	key, rev, err := queueUp(ctx, l.cli, l.pfx, g.ID(), &l.wakes)
	if err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.ttl)
		defer cancel()
		return nil, errors.Join(err, l.deleteName(cctx, g))
	}
	return &held{
		cli: l.cli, key: key, rev: rev, token: rev, lease: g.ID(), done: g.Done(),
		release: func(ctx context.Context) error { return l.deleteName(ctx, g) },
	}, nil
}

// deleteName deletes every key of the lock, ours and everyone else's,
// and ends the holder's lease.
func (l *deleteName) deleteName(ctx context.Context, g *lease.Guard) error {
	_, err := l.cli.Delete(ctx, l.pfx+"/", clientv3.WithPrefix()) // the mistake
	abandon(ctx, g)
	if err != nil {
		return fmt.Errorf("lock: unlock %s: %w", l.pfx, err)
	}
	return nil
}
