package lock

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// newSessionMutex is concurrency.Mutex as etcd's documentation and
// etcdctl lock use it: for each hold a concurrency.NewSession with the TTL
// — the session alone keeps the lease alive, on clientv3's KeepAlive
// stream — and a Mutex on it; the holder stops when the session's Done
// closes, and Unlock unlocks and closes the session. Nothing here is
// broken: what a scenario varies is the client's gRPC keepalive, which
// decides whether the keepalive stream leaves a member that went dark
// with its connection open before the TTL runs out.
func newSessionMutex(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &sessionMutex{cli: cli, pfx: pfx, ttl: ttl}, nil
}

type sessionMutex struct {
	cli *clientv3.Client
	pfx string
	ttl time.Duration
}

// Lock makes a session and locks a Mutex on it. The session's lease is
// revoked when Lock fails; its goroutine ends with the client.
func (m *sessionMutex) Lock(ctx context.Context) (Held, error) {
	s, err := concurrency.NewSession(m.cli, concurrency.WithTTL(int(m.ttl/time.Second)))
	if err != nil {
		return nil, fmt.Errorf("lock: %s: session: %w", m.pfx, err)
	}
	mu := concurrency.NewMutex(s, m.pfx)
	if err := mu.Lock(ctx); err != nil {
		s.Close()
		if errors.Is(err, concurrency.ErrSessionExpired) {
			return nil, fmt.Errorf("%w: lock %s: %w", ErrLeaseExpired, m.pfx, err)
		}
		return nil, fmt.Errorf("lock: %s: %w", m.pfx, err)
	}
	rev := ownerRevision(mu)
	return &held{
		cli: m.cli, key: mu.Key(), rev: rev, token: rev, lease: s.Lease(), done: s.Done(),
		release: func(ctx context.Context) error {
			err := mu.Unlock(ctx)
			s.Close() // revokes the lease, bounded by the TTL
			if err != nil {
				return fmt.Errorf("lock: unlock %s (revision %d): %w", mu.Key(), rev, err)
			}
			return nil
		},
	}, nil
}
