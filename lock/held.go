package lock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// held is the Held every recipe here returns, or embeds to add a method.
type held struct {
	cli   *clientv3.Client
	key   string
	rev   int64 // create revision of key when the lock was acquired
	token int64 // what Token reports: rev, or 0 for a recipe without one
	done  <-chan struct{}

	// release does the recipe's release; Unlock calls it at most once.
	release func(ctx context.Context) error

	mu       sync.Mutex // guards released
	released bool
}

func (h *held) Key() string           { return h.key }
func (h *held) Token() int64          { return h.token }
func (h *held) Done() <-chan struct{} { return h.done }

// Unlock releases the lock once; a second call is an error wrapping
// ErrNotHeld, never a silent no-op that could hide a double release.
func (h *held) Unlock(ctx context.Context) error {
	h.mu.Lock()
	again := h.released
	h.released = true
	h.mu.Unlock()
	if again {
		return fmt.Errorf("%w: %s: released already", ErrNotHeld, h.key)
	}
	return h.release(ctx)
}

// Owned asks etcd, with a linearizable read, whether the holder's key still
// exists with the create revision it was acquired with.
func (h *held) Owned(ctx context.Context) (bool, error) {
	resp, err := h.cli.Get(ctx, h.key)
	if err != nil {
		return false, fmt.Errorf("lock: check owner of %s: %w", h.key, err)
	}
	return len(resp.Kvs) == 1 && resp.Kvs[0].CreateRevision == h.rev, nil
}

// newSession grants a lease of ttl seconds for one holder of lock pfx and
// keeps it alive with a concurrency.Session. A cluster that grants more
// than ttl (its minimum is higher) is an error wrapping ErrTTL. The session
// outlives ctx: ctx bounds the grant only.
func newSession(ctx context.Context, cli *clientv3.Client, pfx string, ttl int) (*concurrency.Session, error) {
	id, err := grantLease(ctx, cli, pfx, ttl)
	if err != nil {
		return nil, err
	}
	s, err := concurrency.NewSession(cli, concurrency.WithLease(id), concurrency.WithTTL(ttl))
	if err != nil {
		revokeQuietly(ctx, cli, id, ttl)
		return nil, fmt.Errorf("lock: %s: keep lease %x alive: %w", pfx, id, err)
	}
	return s, nil
}

// grantLease grants a lease of ttl seconds and checks the cluster did not
// raise it to its own minimum.
func grantLease(ctx context.Context, cli *clientv3.Client, pfx string, ttl int) (clientv3.LeaseID, error) {
	resp, err := cli.Grant(ctx, int64(ttl))
	if err != nil {
		return 0, fmt.Errorf("lock: %s: grant lease: %w", pfx, err)
	}
	if resp.TTL > int64(ttl) {
		revokeQuietly(ctx, cli, resp.ID, ttl)
		return 0, fmt.Errorf("%w: lock %s: TTL %d s, the cluster's minimum is %d s", ErrTTL, pfx, ttl, resp.TTL)
	}
	return resp.ID, nil
}

// revokeQuietly revokes a lease that a failed Lock leaves behind. It runs
// even when ctx has ended, for at most ttl: after that the lease has
// expired anyway. Its error is dropped because the caller is already
// returning the error that made it give up.
func revokeQuietly(ctx context.Context, cli *clientv3.Client, id clientv3.LeaseID, ttl int) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(ttl)*time.Second)
	defer cancel()
	cli.Revoke(rctx, id) //nolint:errcheck // best effort, see above
}

// abandon stops a session whose Lock failed and revokes its lease, which
// deletes any key the attempt left.
func abandon(ctx context.Context, s *concurrency.Session, ttl int) {
	s.Orphan()
	revokeQuietly(ctx, s.Client(), s.Lease(), ttl)
}

// releaseLeased deletes key if it still has create revision rev, then stops
// the lease's keepalive and revokes the lease. A key already gone (the
// lease expired, or someone deleted it) is an error wrapping ErrNotHeld.
func releaseLeased(ctx context.Context, cli *clientv3.Client, key string, rev int64, lease clientv3.LeaseID, stop func()) error {
	resp, err := cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", rev)).
		Then(clientv3.OpDelete(key)).
		Commit()
	stop()
	_, rerr := cli.Revoke(ctx, lease)
	if errors.Is(rerr, rpctypes.ErrLeaseNotFound) {
		rerr = nil // expired: the Txn tells whether we still held
	}
	switch {
	case err != nil:
		return errors.Join(fmt.Errorf("lock: unlock %s: %w", key, err), rerr)
	case !resp.Succeeded:
		return fmt.Errorf("%w: %s: lost before unlock (lease expired or key deleted)", ErrNotHeld, key)
	case rerr != nil:
		return fmt.Errorf("lock: unlock %s: revoke lease %x: %w", key, lease, rerr)
	}
	return nil
}

// releaseSession is releaseLeased for a holder kept alive by a session.
func releaseSession(ctx context.Context, s *concurrency.Session, key string, rev int64) error {
	return releaseLeased(ctx, s.Client(), key, rev, s.Lease(), s.Orphan)
}
