package lock

import (
	"context"
	"errors"
	"fmt"
	"sync"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Every holder of the recipes here tells its lease and can check that it
// still owns the lock.
var (
	_ Leaser  = (*held)(nil)
	_ Checker = (*held)(nil)
)

// held is the Held every recipe here returns, or embeds to add a method.
type held struct {
	cli   *clientv3.Client
	key   string
	rev   int64            // create revision of key when the lock was acquired
	token int64            // what Token reports: rev, or 0 for a recipe without one
	lease clientv3.LeaseID // the lease key is on; 0 if none
	done  <-chan struct{}

	// release does the recipe's release; Unlock calls it at most once.
	release func(ctx context.Context) error

	mu       sync.Mutex // guards released
	released bool
}

func (h *held) Key() string           { return h.key }
func (h *held) Token() int64          { return h.token }
func (h *held) Done() <-chan struct{} { return h.done }

// Lease returns the lease the holder's key is on, 0 if it has none, so
// that faults aimed at a holder's lease can find it (Leaser).
func (h *held) Lease() clientv3.LeaseID { return h.lease }

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

// releaseLeased deletes key if it still has create revision rev, then stops
// the lease's keepalive and revokes the lease. A key already gone (the
// lease expired, or someone deleted it) is an error wrapping ErrNotHeld.
// Both steps are idempotent and retried while ctx allows.
func releaseLeased(ctx context.Context, cli *clientv3.Client, key string, rev int64, lease clientv3.LeaseID, stop func()) error {
	var deleted, unsure bool
	err := retryIdempotent(ctx, func(ctx context.Context) error {
		resp, err := cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(key), "=", rev)).
			Then(clientv3.OpDelete(key)).
			Commit()
		if err != nil {
			unsure = true // the delete may have been applied
			return err
		}
		deleted = resp.Succeeded
		return nil
	})
	stop()
	alive, rerr := revoke(ctx, cli, lease)
	if !deleted && unsure && alive {
		// A retry found the key gone while its lease was still alive: in
		// a correct recipe no one deletes another's key, so the attempt
		// that failed to answer deleted it.
		deleted = true
	}
	switch {
	case err != nil:
		return errors.Join(fmt.Errorf("lock: unlock %s: %w", key, err), rerr)
	case !deleted:
		return fmt.Errorf("%w: %s: lost before unlock (lease expired or key deleted)", ErrNotHeld, key)
	case rerr != nil:
		return fmt.Errorf("lock: unlock %s: %w", key, rerr)
	}
	return nil
}

// revoke revokes lease and reports whether it was still alive; a lease
// already gone is no error.
//
// A revoke is retried when its answer says the request may not have
// reached a working leader, and such an answer does not say the revoke
// was not applied: a leader can apply it and fail before it answers. A
// retry that then finds the lease gone cannot tell that first revoke from
// an expiry, so it reports the lease alive: only a lease found gone by
// the first answer that is sure is reported as expired. So each attempt
// must be seen here: see revokeOnce.
func revoke(ctx context.Context, cli *clientv3.Client, lease clientv3.LeaseID) (alive bool, err error) {
	unsure := false // an earlier attempt may have been applied
	err = retryIdempotent(ctx, func(ctx context.Context) error {
		err := revokeOnce(ctx, cli, lease)
		if err != nil && transient(err) {
			unsure = true
		}
		return err
	})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, rpctypes.ErrLeaseNotFound):
		return unsure, nil
	}
	return false, fmt.Errorf("revoke lease %x: %w", lease, err)
}

// revokeOnce sends one revoke and returns its answer as etcd gave it.
//
// clientv3's Lease.Revoke will not do: it marks the revoke safe to repeat,
// so the client resends it by itself after an Unavailable answer such as
// "request timed out, possibly due to previous leader failure". When the
// attempt that timed out was applied, the resent one answers "lease not
// found", and Revoke returns only that: a lease this revoke removed would
// read as one that expired before unlock. The plain lease stub on the
// client's connection keeps what the connection adds (auth token, version)
// and resends only a request that was never sent.
func revokeOnce(ctx context.Context, cli *clientv3.Client, lease clientv3.LeaseID) error {
	_, err := pb.NewLeaseClient(cli.ActiveConnection()).LeaseRevoke(ctx, &pb.LeaseRevokeRequest{ID: int64(lease)})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	return rpctypes.Error(err)
}
