package lock

import (
	"context"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): a Lock that gives up leaves its waiter key behind
// (the class of etcd #10111, where concurrency.Mutex's Lock left its key
// when its context ended). Each Lock takes a session of its own, and only
// Unlock ends it; the error path forgets to. A waiter that gives up while a
// healthy holder is ahead keeps renewing the session it no longer uses, so
// its key stays in the queue: when the holder releases, the key next in
// line is the orphan's, which nobody will ever release, and every waiter
// behind it waits until its process ends. The constructors reach it only
// when a hold lasts longer than a waiter's patience, the scenario
// lock/orphaned-waiter/impatient-waiter.
//
// newOrphanedWaiter returns the recipe's Locker for the lock called name.
func newOrphanedWaiter(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &orphanedWaiter{cli: cli, pfx: pfx, ttl: ttl}, nil
}

// orphanedWaiter is the queue recipe whose Lock, when it gives up, leaves
// its key and its lease's keepalive running.
type orphanedWaiter struct {
	cli   *clientv3.Client
	pfx   string
	ttl   time.Duration
	wakes atomic.Int64 // watch events received by this Locker's waiters
}

var _ Locker = (*orphanedWaiter)(nil)

// Lock enqueues and waits like the queue recipe; if that fails it returns
// the error and nothing else: the mistake.
func (l *orphanedWaiter) Lock(ctx context.Context) (Held, error) {
	g, err := grant(ctx, l.cli, l.pfx, l.ttl)
	if err != nil {
		return nil, err
	}
	key, rev, err := queueUp(ctx, l.cli, l.pfx, g.ID(), &l.wakes)
	if err != nil {
		// The session is left running; it stops only when the process's
		// client closes, as a leaked session's keepalive does.
		context.AfterFunc(l.cli.Ctx(), g.Stop)
		return nil, err
	}
	return &held{
		cli: l.cli, key: key, rev: rev, token: rev, lease: g.ID(), done: g.Done(),
		release: func(ctx context.Context) error { return releaseKept(ctx, l.cli, g, key, rev) },
	}, nil
}
