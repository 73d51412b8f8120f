package election

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// grant asks for a lease of ttl and returns its ID and the time the request
// was sent. A cluster that raises the TTL to its minimum (etcd does so
// silently) gets the lease revoked again and an ErrBadTTL.
func grant(ctx context.Context, cli *clientv3.Client, ttl time.Duration) (clientv3.LeaseID, time.Time, error) {
	sent := time.Now()
	want := int64(ttl / time.Second)
	resp, err := cli.Grant(ctx, want)
	if err != nil {
		return 0, sent, fmt.Errorf("election: grant lease of %v: %w", ttl, err)
	}
	if resp.TTL != want {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ttl)
		cli.Revoke(rctx, resp.ID) // best effort: it expires anyway
		cancel()
		return 0, sent, fmt.Errorf("%w: asked for %ds, the cluster granted %ds (its minimum)", ErrBadTTL, want, resp.TTL)
	}
	return resp.ID, sent, nil
}

// guard keeps one lease alive and knows, by its own clock alone, until when
// the lease is certainly alive on the cluster.
//
// Why not concurrency.Session.Done: the client's lessor closes it when no
// keep-alive response came for a TTL since the last *response*, and checks
// only twice a second; the server expires the lease a TTL after the last
// *renewal*, which happened before that response. So another candidate can
// win before Session.Done closes. guard instead counts from the moment it
// sent the keep-alive that succeeded (the server renewed later than that,
// so its expiry is later still) and closes Done a quarter TTL before that
// bound, as a margin for scheduling delays. It renews every quarter TTL.
type guard struct {
	cli *clientv3.Client
	id  clientv3.LeaseID
	ttl time.Duration

	done   chan struct{}      // closed when the lease may be gone, or by close
	ctx    context.Context    // cancelled by close; ends a renewal in flight
	cancel context.CancelFunc // cancels ctx
	wg     sync.WaitGroup
	closed sync.Once
}

// newGuard grants a lease of ttl and starts keeping it alive.
func newGuard(ctx context.Context, cli *clientv3.Client, ttl time.Duration) (*guard, error) {
	id, sent, err := grant(ctx, cli, ttl)
	if err != nil {
		return nil, err
	}
	g := &guard{cli: cli, id: id, ttl: ttl, done: make(chan struct{})}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	g.wg.Add(1)
	go g.keep(sent.Add(ttl - ttl/4))
	return g, nil
}

// Done is closed when the lease may have expired, or after close.
func (g *guard) Done() <-chan struct{} { return g.done }

// alive reports whether the lease is still known to be alive.
func (g *guard) alive() bool {
	select {
	case <-g.done:
		return false
	default:
		return true
	}
}

// keep renews the lease until it is lost, its validity runs out, or the
// guard is closed; then it closes done.
func (g *guard) keep(valid time.Time) {
	defer g.wg.Done()
	defer close(g.done)
	for {
		wait := min(g.ttl/4, time.Until(valid))
		t := time.NewTimer(wait)
		select {
		case <-g.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if !time.Now().Before(valid) {
			return
		}
		sent := time.Now()
		rctx, rcancel := context.WithDeadline(g.ctx, valid)
		_, err := g.cli.KeepAliveOnce(rctx, g.id)
		rcancel()
		switch {
		case err == nil:
			valid = sent.Add(g.ttl - g.ttl/4)
		case errors.Is(err, rpctypes.ErrLeaseNotFound):
			return
		}
	}
}

// close stops renewing and revokes the lease, so keys attached to it go
// at once. It waits for the renewal goroutine and is idempotent.
func (g *guard) close(ctx context.Context) error {
	var err error
	g.closed.Do(func() {
		g.cancel()
		g.wg.Wait()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.ttl)
		defer cancel()
		if _, rerr := g.cli.Revoke(rctx, g.id); rerr != nil && !errors.Is(rerr, rpctypes.ErrLeaseNotFound) {
			err = fmt.Errorf("election: revoke lease %x: %w", int64(g.id), rerr)
		}
	})
	return err
}
