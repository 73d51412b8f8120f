package lock

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Fenced is the lock recipe of the etcd documentation written out (a
// lease, a key under the lock's prefix, the lowest create revision holds,
// each waiter watches only its predecessor), whose holders write to etcd
// through a guard: a transaction that commits the write only if the
// holder's key still exists with the create revision it was acquired with.
// A holder that paused past its TTL finds its writes refused instead of
// overwriting its successor's.
//
// Its Held implements Writer (the guarded write) and Checker; the Locker
// implements WakeCounter (one event per waiter per acquisition).
type Fenced struct {
	cli   *clientv3.Client
	pfx   string
	ttl   time.Duration
	wakes atomic.Int64 // watch events received by this Locker's waiters
}

var (
	_ Locker      = (*Fenced)(nil)
	_ WakeCounter = (*Fenced)(nil)
	_ Writer      = (*fencedHeld)(nil)
	_ Checker     = (*fencedHeld)(nil)
)

// NewFenced returns a Locker for the lock called name whose holders write
// through a guard. The cluster's minimum TTL is checked by the first Lock.
func NewFenced(cli *clientv3.Client, name string, opts Options) (*Fenced, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &Fenced{cli: cli, pfx: pfx, ttl: ttl}, nil
}

// Lock creates a session, enqueues the session's key and waits for its
// turn. On failure the session's lease is revoked, which removes the key.
func (f *Fenced) Lock(ctx context.Context) (Held, error) {
	g, err := grant(ctx, f.cli, f.pfx, f.ttl)
	if err != nil {
		return nil, err
	}
	key, rev, err := queueUp(ctx, f.cli, f.pfx, g.ID(), &f.wakes)
	if err != nil {
		abandon(ctx, g)
		return nil, err
	}
	return &fencedHeld{held{
		cli: f.cli, key: key, rev: rev, token: rev, lease: g.ID(), done: g.Done(),
		release: func(ctx context.Context) error { return releaseKept(ctx, f.cli, g, key, rev) },
	}}, nil
}

// Wakeups returns the watch events this Locker's waiters have received.
func (f *Fenced) Wakeups() int64 { return f.wakes.Load() }

// fencedHeld is a Held whose writes are guarded.
type fencedHeld struct{ held }

// Put writes val at key only while the holder owns the lock.
func (h *fencedHeld) Put(ctx context.Context, key, val string) (int64, error) {
	return PutIfHeld(ctx, h.cli, h, key, val)
}

// PutIfHeld writes val at key in one transaction that commits only if h's
// key still exists with create revision h.Token(): the write happens while
// h owns the lock or not at all. It returns the revision of the write, or
// an error wrapping ErrNotHeld. It works with any Held whose token is the
// create revision of its key, as for every recipe here; a Held without a
// token (0) is refused, since "no key" would otherwise compare equal.
//
// A transport error is retried while ctx allows: the guard makes a retry
// safe. If an attempt that failed may have committed and a retry is then
// refused, the error wraps ErrNotHeld and says the earlier outcome is
// unknown.
func PutIfHeld(ctx context.Context, cli *clientv3.Client, h Held, key, val string) (int64, error) {
	if h.Token() <= 0 {
		return 0, fmt.Errorf("%w: %s: no fencing token to guard the write to %s", ErrNotHeld, h.Key(), key)
	}
	var resp *clientv3.TxnResponse
	var unsure error
	err := retryIdempotent(ctx, func(ctx context.Context) error {
		var err error
		resp, err = cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(h.Key()), "=", h.Token())).
			Then(clientv3.OpPut(key, val)).
			Commit()
		if err != nil && unsure == nil {
			unsure = err
		}
		return err
	})
	switch {
	case err != nil:
		return 0, fmt.Errorf("lock: guarded put %s by %s: %w", key, h.Key(), err)
	case !resp.Succeeded && unsure != nil:
		return 0, fmt.Errorf("%w: %s: guarded put %s refused on retry; an earlier attempt failed (%v) and may have committed",
			ErrNotHeld, h.Key(), key, unsure)
	case !resp.Succeeded:
		return 0, fmt.Errorf("%w: %s: guarded put %s refused: the lock key is gone or recreated", ErrNotHeld, h.Key(), key)
	}
	return resp.Header.Revision, nil
}
