package lock

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): the lease's keepalive runs under the context Lock
// was called with. Lock grants a lease and starts clientv3's KeepAlive
// with the caller's context, as code that threads its request's context
// everywhere does; the caller's context ends when Lock returns (a
// deadline on the wait, a request that finished), and with it the
// keepalive. The holder is never told: its Done closes only on Unlock. A
// hold shorter than the TTL never shows it; a hold several TTLs long
// outlives the lease, another client takes the lock, and both work. The
// constructors reach it with lock/call-context-keepalive/long-hold.
//
// newCallContextKeepalive returns the recipe's Locker for the lock called
// name.
func newCallContextKeepalive(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &callContextKeepalive{cli: cli, pfx: pfx, ttl: ttl}, nil
}

// callContextKeepalive is the queue recipe on a lease kept alive under the
// caller's context.
type callContextKeepalive struct {
	cli   *clientv3.Client
	pfx   string
	ttl   time.Duration
	wakes atomic.Int64 // watch events received by this Locker's waiters
}

var _ Locker = (*callContextKeepalive)(nil)

func (l *callContextKeepalive) Lock(ctx context.Context) (Held, error) {
	// The lease comes from a lease.Guard, for its checks of the TTL, which
	// is stopped at once: clientv3's KeepAlive is all that renews it.
	g, err := grant(ctx, l.cli, l.pfx, l.ttl)
	if err != nil {
		return nil, err
	}
	g.Stop()
	lease := struct{ ID clientv3.LeaseID }{g.ID()}
	revoke := func(ctx context.Context) error {
		_, err := l.cli.Revoke(ctx, lease.ID)
		return err
	}
	if _, err := l.cli.KeepAlive(ctx, lease.ID); err != nil { // the mistake: ctx ends when Lock returns
		revoke(context.WithoutCancel(ctx)) //nolint:errcheck // the lease expires anyway
		return nil, fmt.Errorf("lock: %s: keepalive: %w", l.pfx, err)
	}
	key, rev, err := queueUp(ctx, l.cli, l.pfx, lease.ID, &l.wakes)
	if err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.ttl)
		defer cancel()
		revoke(cctx) //nolint:errcheck // the lease expires anyway
		return nil, err
	}
	done := make(chan struct{}) // closed by Unlock only: the holder is never told of its lease
	return &held{
		cli: l.cli, key: key, rev: rev, token: rev, lease: lease.ID, done: done,
		release: func(ctx context.Context) error {
			close(done)
			if _, err := l.cli.Delete(ctx, key); err != nil {
				return fmt.Errorf("lock: unlock %s: %w", key, err)
			}
			return revoke(ctx)
		},
	}, nil
}
