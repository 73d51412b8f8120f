package lock

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
)

// Every holder's lease is kept by a lease.Guard, whose Done closes no later
// than etcd could have expired the lease: it is the holder's Done. The
// recipes built on concurrency.Mutex take a session on the guard's lease
// (Guard.Session), which stops with the guard.

// grant grants the lease of one holder of lock pfx and keeps it alive. The
// guard outlives ctx: ctx bounds the grant only. A TTL the cluster would
// raise to its own minimum is an error wrapping both ErrBadTTL and
// lease.ErrBadTTL.
func grant(ctx context.Context, cli *clientv3.Client, pfx string, ttl time.Duration) (*lease.Guard, error) {
	g, err := lease.Grant(ctx, cli, ttl)
	switch {
	case errors.Is(err, lease.ErrBadTTL):
		return nil, fmt.Errorf("%w: lock %s: %w", ErrBadTTL, pfx, err)
	case err != nil:
		return nil, fmt.Errorf("lock: %s: %w", pfx, err)
	}
	return g, nil
}

// abandon stops g and revokes its lease, which deletes any key on it: the
// clean-up of a Lock that failed, and the release of the broken recipes,
// which do not check what they release. It revokes even when ctx has
// ended, for at most the TTL: after that the lease has expired anyway. Its
// error is dropped because the caller is already returning the error that
// made it give up, or (a broken release) reports nothing of the kind.
func abandon(ctx context.Context, g *lease.Guard) {
	g.Close(context.WithoutCancel(ctx)) //nolint:errcheck // best effort, see above
}

// releaseKept is releaseLeased for a holder whose lease g keeps.
func releaseKept(ctx context.Context, cli *clientv3.Client, g *lease.Guard, key string, rev int64) error {
	return releaseLeased(ctx, cli, key, rev, g.ID(), g.Stop)
}
