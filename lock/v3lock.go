package lock

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3lock/v3lockpb"

	"github.com/etcdsim/etcdsim/lease"
)

// ServerLock uses etcd's server-side lock API (the v3lock gRPC service,
// what `etcdctl lock` calls). The server runs the lock recipe on the
// caller's behalf with a lease the caller supplies, and keeps nothing
// alive: the caller owns the lease and must renew it, which each holder
// here does with a lease guard of its own.
//
// The server answers with the holder's key; the fencing token is that
// key's create revision, read back after the lock is granted.
type ServerLock struct {
	cli  *clientv3.Client
	lock v3lockpb.LockClient
	pfx  string
	ttl  time.Duration
}

var _ Locker = (*ServerLock)(nil)

// NewServerLock returns a Locker for the lock called name that asks the
// server to lock. The cluster's minimum TTL is checked by the first Lock.
func NewServerLock(cli *clientv3.Client, name string, opts Options) (*ServerLock, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &ServerLock{cli: cli, lock: v3lockpb.NewLockClient(cli.ActiveConnection()), pfx: pfx, ttl: ttl}, nil
}

// Lock grants a lease, keeps it alive, and calls the server's Lock with
// it. The server blocks until the lock is ours; if ctx ends first, the
// server withdraws its key and the lease is revoked here as well.
func (l *ServerLock) Lock(ctx context.Context) (Held, error) {
	g, err := grant(ctx, l.cli, l.pfx, l.ttl)
	if err != nil {
		return nil, err
	}
	resp, err := l.lock.Lock(ctx, &v3lockpb.LockRequest{Name: []byte(l.pfx), Lease: int64(g.ID())})
	if err != nil {
		abandon(ctx, g)
		return nil, fmt.Errorf("lock: %s: server lock: %w", l.pfx, err)
	}
	key := string(resp.Key)
	got, err := l.cli.Get(ctx, key)
	switch {
	case err != nil:
		abandon(ctx, g)
		return nil, fmt.Errorf("lock: %s: read token: %w", key, err)
	case len(got.Kvs) == 0:
		abandon(ctx, g)
		return nil, fmt.Errorf("%w: %s: key gone right after the server granted it", ErrLeaseExpired, key)
	}
	rev := got.Kvs[0].CreateRevision
	return &held{
		cli: l.cli, key: key, rev: rev, token: rev, lease: g.ID(), done: g.Done(),
		release: func(ctx context.Context) error { return l.release(ctx, g, key) },
	}, nil
}

// release calls the server's Unlock, which deletes the key whoever owns
// it, then revokes the lease. The API does not say whether the key was
// still ours; a lease that is gone does: the lock was lost before. Both
// steps are idempotent and retried while ctx allows.
func (l *ServerLock) release(ctx context.Context, g *lease.Guard, key string) error {
	err := retryIdempotent(ctx, func(ctx context.Context) error {
		_, err := l.lock.Unlock(ctx, &v3lockpb.UnlockRequest{Key: []byte(key)})
		return err
	})
	g.Stop()
	alive, rerr := revoke(ctx, l.cli, g.ID())
	switch {
	case err != nil:
		return errors.Join(fmt.Errorf("lock: unlock %s: %w", key, err), rerr)
	case rerr != nil:
		return fmt.Errorf("lock: unlock %s: %w", key, rerr)
	case !alive:
		return fmt.Errorf("%w: %s: lease %x expired before unlock", ErrNotHeld, key, g.ID())
	}
	return nil
}
