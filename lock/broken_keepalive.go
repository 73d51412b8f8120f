package lock

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): "a TTL too short for its
// heartbeat and retries", a misconfiguration common in lock write-ups: TTL
// 8 s, a heartbeat every 2 s, 2 retries. It reads as safe, 3 beats × 2 s
// = 6 s < 8 s, but each failed beat first waits out its own 2 s timeout,
// so the holder gives up (1+2) × (2+2) = 12 s after its last renewal,
// about 4 s after etcd deleted its key and let the next waiter in. Until
// then Done stays open and the holder keeps working: two holders. The rule
// it breaks: a holder must stop before TTL after its last renewal, not
// after it. Shown by the scenario lock/keepalive-misconfigured/isolate-holder.
//
// newMisconfiguredKeepalive is the registry's constructor: the document's
// schedule (2 s heartbeat, 2 retries for an 8 s TTL), scaled to opts.TTL.
func newMisconfiguredKeepalive(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	ttl := opts.TTL
	if ttl == 0 {
		ttl = 8 * time.Second
	}
	hb := ttl / 4
	return newKeepaliveWith(cli, name, opts, keepaliveSchedule{Heartbeat: hb, Timeout: hb, Retries: 2})
}

// keepaliveSchedule is the schedule of a hand-rolled lease keepalive: a renewal
// every Heartbeat, each given up after Timeout, and the lease declared
// lost after Retries failed renewals beyond the first.
type keepaliveSchedule struct {
	// Heartbeat is the time between renewals. 0 means 2 s.
	Heartbeat time.Duration `json:"heartbeat,omitempty"`
	// Timeout bounds each renewal. 0 means Heartbeat.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Retries is how many failed renewals after the first are tolerated.
	Retries int `json:"retries,omitempty"`
}

// GiveUp is how long after its last successful renewal the holder
// declares its lease lost: (Retries+1) × (Heartbeat+Timeout).
func (k keepaliveSchedule) GiveUp() time.Duration {
	return time.Duration(k.Retries+1) * (k.Heartbeat + k.Timeout)
}

// misconfiguredKeepalive is the queue recipe with a hand-rolled keepalive
// whose schedule outlasts the lease.
type misconfiguredKeepalive struct {
	cli   *clientv3.Client
	pfx   string
	ttl   time.Duration
	ka    keepaliveSchedule
	wakes atomic.Int64 // watch events received by this Locker's waiters
}

var _ Locker = (*misconfiguredKeepalive)(nil)

// newKeepaliveWith returns the pitfall with the given schedule;
// opts.TTL 0 means 8 s here, the document's value. The registry's recipe
// uses the document's schedule, scaled to opts.TTL when that is set.
func newKeepaliveWith(cli *clientv3.Client, name string, opts Options, ka keepaliveSchedule) (*misconfiguredKeepalive, error) {
	if opts.TTL == 0 {
		opts.TTL = 8 * time.Second
	}
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	if ka.Heartbeat <= 0 {
		ka.Heartbeat = 2 * time.Second
	}
	if ka.Timeout <= 0 {
		ka.Timeout = ka.Heartbeat
	}
	if ka.Retries < 0 {
		return nil, fmt.Errorf("lock: %s: negative keepalive retries %d", pfx, ka.Retries)
	}
	return &misconfiguredKeepalive{cli: cli, pfx: pfx, ttl: ttl, ka: ka}, nil
}

// Lock grants a lease, starts the hand-rolled keepalive, enqueues and
// waits for its turn.
//
// The lease comes from a lease.Guard, for its checks of the TTL, which is
// stopped at once: the hand-rolled keepalive is all that renews the lease
// and all that decides when Done closes. That is the pitfall.
func (l *misconfiguredKeepalive) Lock(ctx context.Context) (Held, error) {
	g, err := grant(ctx, l.cli, l.pfx, l.ttl)
	if err != nil {
		return nil, err
	}
	g.Stop()
	lease := g.ID()
	kctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go l.keepAlive(kctx, lease, done)
	stopAndWait := func() { stop(); <-done }

	key, rev, err := queueUp(ctx, l.cli, l.pfx, lease, &l.wakes)
	if err != nil {
		stopAndWait()
		abandon(ctx, g)
		return nil, err
	}
	return &held{
		cli: l.cli, key: key, rev: rev, token: rev, lease: lease, done: done,
		release: func(ctx context.Context) error {
			return releaseLeased(ctx, l.cli, key, rev, lease, stopAndWait)
		},
	}, nil
}

// keepAlive renews lease on the configured schedule and closes done when
// it declares the lease lost, or when ctx ends.
func (l *misconfiguredKeepalive) keepAlive(ctx context.Context, lease clientv3.LeaseID, done chan<- struct{}) {
	defer close(done)
	beat := time.NewTimer(l.ka.Heartbeat)
	defer beat.Stop()
	failed := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
		}
		actx, cancel := context.WithTimeout(ctx, l.ka.Timeout)
		_, err := l.cli.KeepAliveOnce(actx, lease)
		cancel()
		switch {
		case err == nil:
			failed = 0
		case errors.Is(err, rpctypes.ErrLeaseNotFound):
			return // etcd says so outright
		default:
			failed++
			if failed > l.ka.Retries {
				return
			}
		}
		beat.Reset(l.ka.Heartbeat)
	}
}
