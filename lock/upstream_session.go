package lock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/lease"
)

// sessionLocker is concurrency.Mutex used the way a long-lived service
// uses it, and the way etcd #22082 describes its caller: one session for
// the process, kept for its life (made again only once its lease may be
// lost), and a new Mutex on it for each critical section. Every holder of
// the process therefore has the same key, "<prefix>/<lease in hex>", at a
// new create revision each time. An Unlock that fails is not forgotten:
// the Mutex is kept, since it still names its key, and its release is
// tried again once the process next holds the lock, the first moment it
// knows etcd answers again.
//
// The release itself is the recipe's: upstream's Mutex.Unlock, which
// deletes the key by name (unlock-retry, broken), or a delete that commits
// only while the key still has the create revision this Mutex acquired
// (unlock-retry-fenced, the fix proposed upstream).
//
// Lock is safe for concurrent use, but threads of one process share the
// session and so the key (etcd #11360): the recipes are meant for one
// thread per process, as the report's caller has.
type sessionLocker struct {
	cli *clientv3.Client
	pfx string
	ttl time.Duration
	// release releases mu's lock, or returns an error and leaves mu as
	// it was, so that it can be tried again.
	release func(ctx context.Context, cli *clientv3.Client, mu *concurrency.Mutex) error

	mu     sync.Mutex   // guards g, s, unbind and owed
	g      *lease.Guard // keeps the session's lease; nil before the first Lock
	s      *concurrency.Session
	unbind func() bool          // stops g from ending with the client
	owed   []*concurrency.Mutex // Mutexes whose release failed, to be tried again
}

var _ Locker = (*sessionLocker)(nil)

func newSessionLocker(cli *clientv3.Client, name string, opts Options,
	release func(context.Context, *clientv3.Client, *concurrency.Mutex) error) (*sessionLocker, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &sessionLocker{cli: cli, pfx: pfx, ttl: ttl, release: release}, nil
}

// Lock locks a new concurrency.Mutex on the process's session, then tries
// again the releases that failed before.
func (l *sessionLocker) Lock(ctx context.Context) (Held, error) {
	g, s, err := l.session(ctx)
	if err != nil {
		return nil, err
	}
	mu := concurrency.NewMutex(s, l.pfx)
	if err := mu.Lock(ctx); err != nil {
		if errors.Is(err, concurrency.ErrSessionExpired) {
			return nil, fmt.Errorf("%w: lock %s: %w", ErrLeaseExpired, l.pfx, err)
		}
		return nil, fmt.Errorf("lock: %s: %w", l.pfx, err)
	}
	l.settle(ctx)
	key, rev := mu.Key(), ownerRevision(mu)
	return &held{
		cli: l.cli, key: key, rev: rev, token: rev, lease: g.ID(), done: g.Done(),
		release: func(ctx context.Context) error {
			rctx, cancel := context.WithTimeout(ctx, l.ttl) // the caller's deadline for an unlock
			defer cancel()
			if err := l.release(rctx, l.cli, mu); err != nil {
				if !errors.Is(err, ErrNotHeld) {
					l.owe(s, mu)
				}
				return fmt.Errorf("lock: unlock %s (revision %d): %w", key, rev, err)
			}
			return nil
		},
	}, nil
}

// session returns the process's session, made anew if there is none or its
// lease may be gone. The releases owed on a session that is replaced are
// dropped: its lease is revoked here, which deletes their keys.
func (l *sessionLocker) session(ctx context.Context) (*lease.Guard, *concurrency.Session, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.g != nil && l.g.Alive() {
		return l.g, l.s, nil
	}
	if l.g != nil {
		l.unbind()
		abandon(ctx, l.g)
		l.g, l.s, l.owed = nil, nil, nil
	}
	g, err := grant(ctx, l.cli, l.pfx, l.ttl)
	if err != nil {
		return nil, nil, err
	}
	s, err := g.Session()
	if err != nil {
		abandon(ctx, g)
		return nil, nil, fmt.Errorf("lock: %s: session: %w", l.pfx, err)
	}
	// The session lives as long as the process, which here is its
	// client: when the client closes, the guard stops and its goroutines
	// end, and the lease expires as a crashed process's would.
	l.g, l.s, l.unbind = g, s, context.AfterFunc(l.cli.Ctx(), g.Stop)
	return g, s, nil
}

// owe keeps mu, whose release failed, to try it again after the next Lock,
// unless its session has been replaced meanwhile.
func (l *sessionLocker) owe(s *concurrency.Session, mu *concurrency.Mutex) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s == s {
		l.owed = append(l.owed, mu)
	}
}

// settle tries again every release owed, each for at most a TTL, and keeps
// those that fail again. A release that finds nothing left to release is
// done.
func (l *sessionLocker) settle(ctx context.Context) {
	l.mu.Lock()
	owed := l.owed
	l.owed = nil
	l.mu.Unlock()
	var still []*concurrency.Mutex
	for _, mu := range owed {
		rctx, cancel := context.WithTimeout(ctx, l.ttl)
		err := l.release(rctx, l.cli, mu)
		cancel()
		if err != nil && !errors.Is(err, ErrNotHeld) && !errors.Is(err, concurrency.ErrLockReleased) {
			still = append(still, mu)
		}
	}
	if len(still) > 0 {
		l.mu.Lock()
		l.owed = append(l.owed, still...)
		l.mu.Unlock()
	}
}
