package myrecipes

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
	"github.com/etcdsim/etcdsim/lock"
)

// The optional interfaces a holder of ours offers, beside lock.Held.
var (
	_ lock.Held    = (*holder)(nil)
	_ lock.Leaser  = (*holder)(nil)
	_ lock.Checker = (*holder)(nil)
	_ lock.Writer  = (*holder)(nil)
)

// queueLock is a lock written from etcd's documented recipe: each
// candidate puts a key of its own, "<prefix><name>/<lease in hex>", on a
// lease of its own, and holds the lock when its key has the lowest create
// revision under the lock. A waiter watches only the key just ahead of it
// (no herd), from the revision at which it read it (no missed wake-up), and
// looks again whenever that key goes.
//
// The lease is kept by a lease.Guard, whose Done closes before the cluster
// can expire the lease; Done of a holder is the guard's.
type queueLock struct {
	cli *clientv3.Client
	pfx string // "<prefix><name>/"
	ttl time.Duration
}

// NewLock returns the lock called name for cli. Options.TTL 0 means
// lock.DefaultTTL and Options.Prefix "" means lock.DefaultPrefix.
func NewLock(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
	switch {
	case cli == nil:
		return nil, fmt.Errorf("myrecipes: lock %q: nil client", name)
	case name == "":
		return nil, lock.ErrBadName
	}
	if opts.TTL == 0 {
		opts.TTL = lock.DefaultTTL
	}
	if err := lease.CheckTTL(opts.TTL); err != nil {
		return nil, fmt.Errorf("%w: lock %q: %w", lock.ErrBadTTL, name, err)
	}
	if opts.Prefix == "" {
		opts.Prefix = lock.DefaultPrefix
	}
	return &queueLock{cli: cli, pfx: opts.Prefix + name + "/", ttl: opts.TTL}, nil
}

// Lock queues a key of its own and waits until it is first. A Lock that
// fails revokes its lease, which takes its key out of the queue.
func (l *queueLock) Lock(ctx context.Context) (lock.Held, error) {
	g, err := lease.Grant(ctx, l.cli, l.ttl)
	if err != nil {
		if errors.Is(err, lease.ErrBadTTL) {
			err = fmt.Errorf("%w: %w", lock.ErrBadTTL, err)
		}
		return nil, fmt.Errorf("myrecipes: lock %s: %w", l.pfx, err)
	}
	h, err := l.acquire(ctx, g)
	if err != nil {
		// The waiter's key leaves with its lease, even if ctx has ended.
		return nil, errors.Join(err, g.Close(context.WithoutCancel(ctx)))
	}
	return h, nil
}

// acquire puts the candidate's key on g's lease and waits for its turn.
func (l *queueLock) acquire(ctx context.Context, g *lease.Guard) (*holder, error) {
	// Waiting ends with ctx or with the lease: a waiter whose lease may be
	// gone must not go on to believe it holds the lock.
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(g.Context(), func() { cancel(fmt.Errorf("%w: %w", lock.ErrLeaseExpired, g.Err())) })()

	key := fmt.Sprintf("%s%x", l.pfx, g.ID())
	resp, err := l.cli.Txn(wctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, "", clientv3.WithLease(g.ID()))).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return nil, l.failed(wctx, key, err)
	}
	rev := resp.Header.Revision
	if !resp.Succeeded {
		rev = resp.Responses[0].GetResponseRange().Kvs[0].CreateRevision
	}
	for {
		// The key just ahead of ours: the last one created before it.
		ahead, err := l.cli.Get(wctx, l.pfx, append(clientv3.WithLastCreate(), clientv3.WithMaxCreateRev(rev-1))...)
		if err != nil {
			return nil, l.failed(wctx, key, err)
		}
		if len(ahead.Kvs) == 0 {
			// First in line. A linearizable read of our own key proves the
			// lease was alive after every key ahead was gone.
			own, err := l.cli.Get(wctx, key)
			switch {
			case err != nil:
				return nil, l.failed(wctx, key, err)
			case len(own.Kvs) == 0 || own.Kvs[0].CreateRevision != rev:
				return nil, fmt.Errorf("%w: %s: the key was gone when its turn came", lock.ErrLeaseExpired, key)
			case !g.Alive():
				return nil, fmt.Errorf("%w: %s: %w", lock.ErrLeaseExpired, key, g.Err())
			}
			return &holder{cli: l.cli, key: key, rev: rev, g: g}, nil
		}
		if err := l.waitDeleted(wctx, string(ahead.Kvs[0].Key), ahead.Header.Revision); err != nil {
			return nil, l.failed(wctx, key, err)
		}
	}
}

// waitDeleted returns once key is deleted after revision rev, or with the
// reason ctx ended. A watch that breaks (a compaction, a lost member) ends
// the wait too: the caller looks again.
func (l *queueLock) waitDeleted(ctx context.Context, key string, rev int64) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for wr := range l.cli.Watch(wctx, key, clientv3.WithRev(rev+1), clientv3.WithFilterPut()) {
		if wr.Err() != nil || len(wr.Events) > 0 {
			return nil
		}
	}
	return context.Cause(ctx)
}

// failed says why acquiring key failed: the reason ctx ended if it did
// (the caller's, or the lease's loss), else err.
func (l *queueLock) failed(ctx context.Context, key string, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		err = cause
	}
	return fmt.Errorf("myrecipes: lock %s: %w", key, err)
}

// holder is one holder of a queueLock.
type holder struct {
	cli *clientv3.Client
	key string
	rev int64 // the create revision of key: the fencing token
	g   *lease.Guard
}

func (h *holder) Key() string             { return h.key }
func (h *holder) Token() int64            { return h.rev }
func (h *holder) Done() <-chan struct{}   { return h.g.Done() }
func (h *holder) Lease() clientv3.LeaseID { return h.g.ID() }

// Unlock stops acting as the holder first (Done closes), then deletes the
// key if it is still ours and revokes the lease.
func (h *holder) Unlock(ctx context.Context) error {
	h.g.Stop()
	resp, err := h.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(h.key), "=", h.rev)).
		Then(clientv3.OpDelete(h.key)).
		Commit()
	cerr := h.g.Close(ctx)
	switch {
	case err != nil:
		return errors.Join(fmt.Errorf("myrecipes: unlock %s: %w", h.key, err), cerr)
	case !resp.Succeeded:
		return fmt.Errorf("%w: %s: lost before unlock", lock.ErrNotHeld, h.key)
	}
	return cerr
}

// Owned asks etcd, with a linearizable read, whether our key is still there.
func (h *holder) Owned(ctx context.Context) (bool, error) {
	resp, err := h.cli.Get(ctx, h.key)
	if err != nil {
		return false, fmt.Errorf("myrecipes: check %s: %w", h.key, err)
	}
	return len(resp.Kvs) == 1 && resp.Kvs[0].CreateRevision == h.rev, nil
}

// Put writes val at key only while our key is there with our revision.
func (h *holder) Put(ctx context.Context, key, val string) (int64, error) {
	resp, err := h.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(h.key), "=", h.rev)).
		Then(clientv3.OpPut(key, val)).
		Commit()
	if err != nil {
		return 0, fmt.Errorf("myrecipes: put %s as holder of %s: %w", key, h.key, err)
	}
	if !resp.Succeeded {
		return 0, fmt.Errorf("%w: %s: put %s refused", lock.ErrNotHeld, h.key, key)
	}
	return resp.Header.Revision, nil
}
