package lock

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/lease"
)

// Mutex is the lock of etcd's client library, concurrency.Mutex, used as
// its authors intend: each holder has a session (a lease kept alive) of its
// own, so two holders never share a key. Every Lock creates a session and
// Unlock ends it.
//
// The fencing token is the create revision of the holder's key, which the
// library itself uses to order holders (Mutex.IsOwner).
//
// One behaviour of the library shows under faults: when a Lock's context
// ends while it waits, concurrency.Mutex withdraws its key with the
// client's own context, so a Lock cancelled while its client reaches no
// member returns only once the client reaches one again.
type Mutex struct {
	cli *clientv3.Client
	pfx string
	ttl time.Duration
}

var _ Locker = (*Mutex)(nil)

// NewMutex returns a Locker for the lock called name, backed by
// concurrency.Mutex. It checks name and opts; the cluster's minimum TTL
// is checked by the first Lock.
func NewMutex(cli *clientv3.Client, name string, opts Options) (*Mutex, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &Mutex{cli: cli, pfx: pfx, ttl: ttl}, nil
}

// Lock creates a session and waits with concurrency.Mutex.Lock until the
// session's key is the oldest under the lock's prefix. On failure the
// session's lease is revoked, which removes its key.
func (m *Mutex) Lock(ctx context.Context) (Held, error) {
	g, mu, err := lockMutex(ctx, m.cli, m.pfx, m.ttl)
	if err != nil {
		return nil, err
	}
	rev := ownerRevision(mu)
	return &held{
		cli: m.cli, key: mu.Key(), rev: rev, token: rev, lease: g.ID(), done: g.Done(),
		release: func(ctx context.Context) error { return releaseKept(ctx, m.cli, g, mu.Key(), rev) },
	}, nil
}

// lockMutex acquires a concurrency.Mutex on a session of its own, on a
// lease a guard keeps.
func lockMutex(ctx context.Context, cli *clientv3.Client, pfx string, ttl time.Duration) (*lease.Guard, *concurrency.Mutex, error) {
	g, err := grant(ctx, cli, pfx, ttl)
	if err != nil {
		return nil, nil, err
	}
	s, err := g.Session()
	if err != nil {
		abandon(ctx, g)
		return nil, nil, fmt.Errorf("lock: %s: session: %w", pfx, err)
	}
	mu := concurrency.NewMutex(s, pfx)
	if err := mu.Lock(ctx); err != nil {
		abandon(ctx, g)
		if errors.Is(err, concurrency.ErrSessionExpired) {
			return nil, nil, fmt.Errorf("%w: lock %s: %w", ErrLeaseExpired, pfx, err)
		}
		return nil, nil, fmt.Errorf("lock: %s: %w", pfx, err)
	}
	return g, mu, nil
}

// ownerRevision is the create revision mu compares to prove ownership:
// the revision its key was created at.
func ownerRevision(mu *concurrency.Mutex) int64 {
	cmp := mu.IsOwner()
	return cmp.GetCompare().GetCreateRevision()
}
