package lock

import (
	"context"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/lease"
)

// BROKEN (deliberately): etcd #11360 (a Mutex used
// from several goroutines; see also the attempted fixes #11364 and #11391,
// both closed). concurrency.Mutex names the holder's key after the
// session's lease, so every Mutex on one
// session has the same key; the second Lock finds that key already there,
// takes it for its own and returns at once. Two goroutines both "hold" the
// lock, and the first Unlock deletes the key under the other. The library
// documents a session per holder; sharing one to save leases is the
// mistake. Shown by the scenario lock/shared-session/healthy.
//
// newSharedSession returns the recipe's Locker for the lock called name.
func newSharedSession(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &sharedSession{cli: cli, pfx: pfx, ttl: ttl}, nil
}

// sharedSession is a concurrency.Mutex used from several goroutines of one
// process through a single session.
type sharedSession struct {
	cli *clientv3.Client
	pfx string
	ttl time.Duration

	mu      sync.Mutex   // guards g, s and holders
	g       *lease.Guard // keeps the shared session's lease
	s       *concurrency.Session
	holders int // Helds not yet unlocked; the last one ends the session
}

var _ Locker = (*sharedSession)(nil)

// Lock locks a new concurrency.Mutex on the Locker's one session, creating
// the session if there is none.
func (l *sharedSession) Lock(ctx context.Context) (Held, error) {
	g, s, err := l.acquireSession(ctx)
	if err != nil {
		return nil, err
	}
	mu := concurrency.NewMutex(s, l.pfx)
	if err := mu.Lock(ctx); err != nil {
		l.releaseSession(ctx)
		return nil, fmt.Errorf("lock: %s: %w", l.pfx, err)
	}
	rev := ownerRevision(mu)
	key := mu.Key()
	return &held{
		cli: l.cli, key: key, rev: rev, token: rev, lease: g.ID(), done: g.Done(),
		release: func(ctx context.Context) error {
			err := mu.Unlock(ctx) // deletes the key, whoever else thinks it is theirs
			l.releaseSession(ctx)
			if err != nil {
				return fmt.Errorf("lock: unlock %s: %w", key, err)
			}
			return nil
		},
	}, nil
}

func (l *sharedSession) acquireSession(ctx context.Context) (*lease.Guard, *concurrency.Session, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s == nil {
		g, err := grant(ctx, l.cli, l.pfx, l.ttl)
		if err != nil {
			return nil, nil, err
		}
		s, err := g.Session()
		if err != nil {
			abandon(ctx, g)
			return nil, nil, fmt.Errorf("lock: %s: session: %w", l.pfx, err)
		}
		l.g, l.s = g, s
	}
	l.holders++
	return l.g, l.s, nil
}

// releaseSession drops one holder and ends the session with the last.
func (l *sharedSession) releaseSession(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holders--
	if l.holders == 0 && l.s != nil {
		abandon(ctx, l.g)
		l.g, l.s = nil, nil
	}
}
