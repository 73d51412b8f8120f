package lock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): concurrency.Mutex, one session per holder, whose
// holder tells whether it still holds the lock
// by taking the next answer off clientv3's KeepAlive channel of its lease
// before each write, and holds on while that answer gives the lease a TTL
// (etcd #21638, https://github.com/etcd-io/etcd/issues/21638). The channel is buffered:
// the lessor puts each answer on it as it arrives, and a holder that takes
// one answer per step, slower than they come, falls behind. When the lease
// is revoked the answers already on the channel stay there — each saying
// the lease lives, with the TTL it had — and the channel closes only after
// them. The holder takes one of those after the revoke has returned, and
// writes as the holder of a lock whose key is gone and which another
// client may hold by now.
func newKeepAliveChannel(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	return newKeepAliveLocker(cli, name, opts, false)
}

// newKeepAliveOnce is keepalive-channel with the fix: the holder asks with
// KeepAliveOnce, a request it sends when it checks, so that after a revoke
// the answer comes from a cluster that no longer has the lease and says so.
func newKeepAliveOnce(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	return newKeepAliveLocker(cli, name, opts, true)
}

// keepAliveLocker is concurrency.Mutex on a session of its own per
// holder, as Mutex is, whose holders judge their hold by keep-alive
// answers (KeepAliveChecker): off a KeepAlive channel, or, with once, from
// a KeepAliveOnce each.
type keepAliveLocker struct {
	cli  *clientv3.Client
	pfx  string
	ttl  time.Duration
	once bool
}

func newKeepAliveLocker(cli *clientv3.Client, name string, opts Options, once bool) (*keepAliveLocker, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &keepAliveLocker{cli: cli, pfx: pfx, ttl: ttl, once: once}, nil
}

// Lock acquires a concurrency.Mutex as Mutex does and, for the channel
// holder, opens the KeepAlive channel of the session's lease, which lives
// until the holder's lease guard stops.
func (l *keepAliveLocker) Lock(ctx context.Context) (Held, error) {
	g, mu, err := lockMutex(ctx, l.cli, l.pfx, l.ttl)
	if err != nil {
		return nil, err
	}
	rev := ownerRevision(mu)
	h := &keepAliveHeld{
		held: held{
			cli: l.cli, key: mu.Key(), rev: rev, token: rev, lease: g.ID(), done: g.Done(),
			release: func(ctx context.Context) error { return releaseKept(ctx, l.cli, g, mu.Key(), rev) },
		},
	}
	if !l.once {
		ch, err := l.cli.KeepAlive(g.Context(), g.ID())
		if err != nil {
			abandon(ctx, g)
			return nil, fmt.Errorf("lock: %s: keep-alive of lease %x: %w", l.pfx, int64(g.ID()), err)
		}
		h.answers = ch
	}
	return h, nil
}

// keepAliveHeld is a holder that answers KeepAlive: with the next answer
// off its channel (answers set), or with a KeepAliveOnce.
type keepAliveHeld struct {
	held
	answers <-chan *clientv3.LeaseKeepAliveResponse // nil: ask with KeepAliveOnce
}

var _ KeepAliveChecker = (*keepAliveHeld)(nil)

// KeepAlive returns the next keep-alive answer of the holder's lease: the
// next one on its channel, TTL 0 once the channel has closed; or a fresh
// one from KeepAliveOnce, TTL 0 when the cluster no longer has the lease.
func (h *keepAliveHeld) KeepAlive(ctx context.Context) (KeepAliveAnswer, error) {
	if h.answers == nil {
		resp, err := h.cli.KeepAliveOnce(ctx, h.lease)
		switch {
		case errors.Is(err, rpctypes.ErrLeaseNotFound):
			return KeepAliveAnswer{}, nil
		case err != nil:
			return KeepAliveAnswer{}, fmt.Errorf("lock: %s: keep-alive of lease %x: %w", h.key, int64(h.lease), err)
		}
		return answerOf(resp), nil
	}
	select {
	case resp, ok := <-h.answers:
		if !ok {
			return KeepAliveAnswer{}, nil
		}
		return answerOf(resp), nil
	case <-ctx.Done():
		return KeepAliveAnswer{}, fmt.Errorf("lock: %s: no keep-alive answer of lease %x: %w", h.key, int64(h.lease), ctx.Err())
	}
}

// answerOf is what a keep-alive response says.
func answerOf(resp *clientv3.LeaseKeepAliveResponse) KeepAliveAnswer {
	a := KeepAliveAnswer{TTL: time.Duration(max(resp.TTL, 0)) * time.Second}
	if resp.ResponseHeader != nil {
		a.Header = resp.ResponseHeader.Revision
	}
	return a
}
