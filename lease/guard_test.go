package lease_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/lease"
)

// grant grants a guarded lease of ttl and closes the guard when the test
// ends.
func grant(t *testing.T, ctx context.Context, cli *clientv3.Client, ttl time.Duration) *lease.Guard {
	t.Helper()
	g, err := lease.Grant(ctx, cli, ttl)
	if err != nil {
		t.Fatalf("Grant(%v): %v", ttl, err)
	}
	t.Cleanup(func() {
		if err := g.Close(context.Background()); err != nil {
			t.Errorf("Close lease %x: %v", g.ID(), err)
		}
	})
	return g
}

// remaining is the lease's TTL left as obs sees it: -1 once it is gone.
func remaining(t *testing.T, ctx context.Context, obs *clientv3.Client, id clientv3.LeaseID) int64 {
	t.Helper()
	left, err := ttlLeft(ctx, obs, id)
	if err != nil {
		t.Fatal(err)
	}
	return left
}

// ttlLeft is remaining for a check run by clustertest.Eventually: -1 once
// the lease is gone.
func ttlLeft(ctx context.Context, obs *clientv3.Client, id clientv3.LeaseID) (int64, error) {
	resp, err := obs.TimeToLive(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("TimeToLive of lease %x: %w", id, err)
	}
	return resp.TTL, nil
}

// gone returns nil once obs sees lease id gone.
func gone(ctx context.Context, obs *clientv3.Client, id clientv3.LeaseID) error {
	left, err := ttlLeft(ctx, obs, id)
	switch {
	case err != nil:
		return err
	case left >= 0:
		return fmt.Errorf("lease %x has %ds left", id, left)
	}
	return nil
}

// leases counts the leases on the cluster.
func leases(t *testing.T, ctx context.Context, cli *clientv3.Client) int {
	t.Helper()
	resp, err := cli.Leases(ctx)
	if err != nil {
		t.Fatalf("Leases: %v", err)
	}
	return len(resp.Leases)
}

// A TTL etcd cannot grant as asked is refused before anything is granted,
// with an error that names it and says what would do. It stays on the
// real clock: its subtests share one cluster, and a synctest bubble cannot
// hold t.Run.
func TestGrantBadTTL(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	ctx := clustertest.Context(t)
	cli := clustertest.Client(t, c, "c1")
	tests := []struct {
		name string
		ttl  time.Duration
		says string // what the error must say would do
	}{
		{name: "zero", ttl: 0, says: "at least 1s"},
		{name: "negative", ttl: -time.Second, says: "at least 1s"},
		{name: "below a second", ttl: 500 * time.Millisecond, says: "at least 1s"},
		{name: "a second and a half", ttl: 1500 * time.Millisecond, says: "use 1s or 2s"},
		{name: "not whole seconds", ttl: 2500 * time.Millisecond, says: "use 2s or 3s"},
		{name: "a nanosecond over", ttl: 5*time.Second + 1, says: "use 5s or 6s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, err := range []error{lease.CheckTTL(tt.ttl), grantErr(ctx, cli, tt.ttl)} {
				if !errors.Is(err, lease.ErrBadTTL) {
					t.Fatalf("TTL %v: got %v, want ErrBadTTL", tt.ttl, err)
				}
				if msg := err.Error(); !strings.Contains(msg, tt.ttl.String()) || !strings.Contains(msg, tt.says) {
					t.Errorf("TTL %v: error %q does not name the TTL and say %q", tt.ttl, msg, tt.says)
				}
			}
		})
	}
	if n := leases(t, ctx, cli); n != 0 {
		t.Errorf("%d leases granted for bad TTLs, want none", n)
	}
	for _, ttl := range []time.Duration{time.Second, time.Minute} {
		if err := lease.CheckTTL(ttl); err != nil {
			t.Errorf("CheckTTL(%v): %v", ttl, err)
		}
	}
}

// grantErr is Grant's error, closing the guard if there is one.
func grantErr(ctx context.Context, cli *clientv3.Client, ttl time.Duration) error {
	g, err := lease.Grant(ctx, cli, ttl)
	if err == nil {
		return errors.Join(fmt.Errorf("granted lease %x", g.ID()), g.Close(ctx))
	}
	return err
}

// A cluster whose election timeout is 700ms cannot grant leases shorter
// than 2s (etcd raises a TTL to 1.5 election timeouts, rounded up) and
// would grant 2s when asked for 1s. Grant revokes that lease and says so.
func TestGrantBelowClusterMinimum(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{ElectionTimeout: 700 * time.Millisecond})
		ctx := clustertest.Context(t)
		cli := clustertest.Client(t, c, "c1")
		_, err := lease.Grant(ctx, cli, time.Second)
		if !errors.Is(err, lease.ErrBadTTL) {
			t.Fatalf("Grant(1s) on a cluster whose minimum is 2s: got %v, want ErrBadTTL", err)
		}
		if msg := err.Error(); !strings.Contains(msg, "1s") || !strings.Contains(msg, "2s") {
			t.Errorf("error %q does not name both the TTL asked for (1s) and the one granted (2s)", msg)
		}
		// The revoke is committed when Grant returns; the member this client
		// lists leases on may apply it a moment later.
		clustertest.Eventually(t, ctx, "the refused grant's lease revoked", func(ctx context.Context) error {
			resp, err := cli.Leases(ctx)
			if err != nil {
				return err
			}
			if n := len(resp.Leases); n != 0 {
				return fmt.Errorf("%d leases left after the refused grant", n)
			}
			return nil
		})
		g := grant(t, ctx, cli, 2*time.Second)
		if g.TTL() != 2*time.Second {
			t.Errorf("TTL() = %v, want 2s", g.TTL())
		}
	})
}

// A guard keeps a 1s lease alive for several TTLs on a healthy cluster.
func TestKeepsAlive(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		ctx := clustertest.Context(t)
		obs := clustertest.Observer(t, c.Members()...)
		g := grant(t, ctx, clustertest.Client(t, c, "c1"), time.Second)
		select {
		case <-g.Done():
			t.Fatalf("Done closed on a healthy cluster: %v", g.Err())
		case <-time.After(5 * g.TTL()):
		}
		if left := remaining(t, ctx, obs, g.ID()); left < 0 {
			t.Fatalf("lease %x gone after 5 TTLs although the guard is alive", g.ID())
		}
		if !g.Alive() || g.Err() != nil || g.Context().Err() != nil {
			t.Errorf("alive guard: Alive %v, Err %v, Context().Err %v", g.Alive(), g.Err(), g.Context().Err())
		}
	})
}

// Close revokes the lease, which deletes its keys at once; it is
// idempotent and safe to call concurrently, with Stop too.
func TestCloseRevokes(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		ctx := clustertest.Context(t)
		cli := clustertest.Client(t, c, "c1")
		obs := clustertest.Observer(t, c.Members()...)
		g, err := lease.Grant(ctx, cli, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Put(ctx, "/guarded", "x", clientv3.WithLease(g.ID())); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 3 {
			wg.Go(func() { errs <- g.Close(ctx) })
		}
		wg.Go(g.Stop)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("Close: %v", err)
			}
		}
		resp, err := obs.Get(ctx, "/guarded")
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Kvs) != 0 {
			t.Errorf("the key on lease %x is still there after Close", g.ID())
		}
		clustertest.Eventually(t, ctx, "the closed guard's lease is gone", func(ctx context.Context) error {
			return gone(ctx, obs, g.ID())
		})
		if !clustertest.Closed(g.Done()) || g.Alive() || !errors.Is(g.Err(), lease.ErrStopped) {
			t.Errorf("closed guard: Done closed %v, Alive %v, Err %v (want ErrStopped)", clustertest.Closed(g.Done()), g.Alive(), g.Err())
		}
		if err := g.Close(ctx); err != nil {
			t.Errorf("Close again: %v", err)
		}
	})
}

// Stop stops renewing and leaves the lease, as a crashed client does: the
// cluster expires it on its own. Closing after Stop still returns nil.
func TestStopLeavesLease(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		ctx := clustertest.Context(t)
		obs := clustertest.Observer(t, c.Members()...)
		g := grant(t, ctx, clustertest.Client(t, c, "c1"), 2*time.Second)
		g.Stop()
		if !errors.Is(g.Err(), lease.ErrStopped) {
			t.Errorf("Err after Stop: %v, want ErrStopped", g.Err())
		}
		// Renewed at most a quarter TTL before Stop: well over a second left.
		if left := remaining(t, ctx, obs, g.ID()); left < 0 {
			t.Fatalf("lease %x gone right after Stop, want it left to expire", g.ID())
		}
		clustertest.Eventually(t, ctx, "the stopped guard's lease expires", func(ctx context.Context) error {
			return gone(ctx, obs, g.ID())
		})
		g.Stop() // idempotent
		if err := g.Close(ctx); err != nil {
			t.Errorf("Close of an expired lease: %v, want nil", err)
		}
	})
}

// Done closes when someone else revokes the lease; Err and the guard's
// Context say why.
func TestDoneWhenRevokedElsewhere(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		ctx := clustertest.Context(t)
		obs := clustertest.Observer(t, c.Members()...)
		// A long TTL: Done must close because a renewal finds the lease gone,
		// not because the deadline passes.
		g := grant(t, ctx, clustertest.Client(t, c, "c1"), 5*time.Second)
		if _, err := obs.Revoke(ctx, g.ID()); err != nil {
			t.Fatal(err)
		}
		select {
		case <-g.Done():
		case <-ctx.Done():
			t.Fatal("Done still open after the lease was revoked")
		}
		err := g.Err()
		if !errors.Is(err, lease.ErrLost) || !errors.Is(err, rpctypes.ErrLeaseNotFound) {
			t.Errorf("Err = %v, want ErrLost and rpctypes.ErrLeaseNotFound", err)
		}
		if cause := context.Cause(g.Context()); cause != err {
			t.Errorf("context.Cause(Context()) = %v, want Err() = %v", cause, err)
		}
		if _, err := g.Session(); !errors.Is(err, lease.ErrLost) {
			t.Errorf("Session after the lease was lost: got %v, want ErrLost", err)
		}
	})
}

// A concurrency.Session on the guard's lease serves concurrency.Mutex and
// stops with the guard.
func TestSession(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		ctx := clustertest.Context(t)
		g := grant(t, ctx, clustertest.Client(t, c, "c1"), 5*time.Second)
		s, err := g.Session()
		if err != nil {
			t.Fatal(err)
		}
		if s.Lease() != g.ID() {
			t.Fatalf("session on lease %x, want the guard's %x", s.Lease(), g.ID())
		}
		mu := concurrency.NewMutex(s, "/session-lock")
		if err := mu.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(mu.Key(), fmt.Sprintf("%x", g.ID())) {
			t.Errorf("mutex key %s is not on the guard's lease %x", mu.Key(), g.ID())
		}
		if err := mu.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		g.Stop()
		if !clustertest.Closed(s.Done()) {
			t.Error("the session is still running after Stop returned")
		}
		if _, err := g.Session(); !errors.Is(err, lease.ErrStopped) {
			t.Errorf("Session after Stop: got %v, want ErrStopped", err)
		}
	})
}

// TestDoneBeforeServerExpiry is what the guard is for. The answers to the
// client's renewals are delayed (every member→c1 link), so each arrives
// well after the cluster renewed the lease; then the client is cut off
// both ways. The last renewal the guard saw acknowledged was sent before
// the cut, and the guard counts the TTL from that send, so by
// construction Done closes at most a TTL after the cut (less the margin),
// and before an observer that no fault touches sees the lease gone on the
// cluster.
//
// A timer counted from the *receipt* of the last answer (the client's
// lessor does that, and so concurrency.Session.Done) would close one
// delayed answer, 600ms here, after the cluster's expiry: its holder would
// go on working on a lease the cluster had already let go.
//
// Times are measured so that error is against the guard: doneAt is taken
// by a goroutine woken after Done closed, goneAt is when the first
// TimeToLive that saw the lease gone was sent.
func TestDoneBeforeServerExpiry(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		const (
			ttl   = 2 * time.Second
			delay = 600 * time.Millisecond // under half the TTL: the guard keeps the lease through it
		)
		c := cluster.New(t, cluster.Config{})
		ctx := clustertest.Context(t)
		obs := clustertest.Observer(t, c.Members()...)
		g := grant(t, ctx, clustertest.Client(t, c, "c1"), ttl)
		var doneAt atomic.Pointer[time.Time]
		context.AfterFunc(g.Context(), func() {
			now := time.Now()
			doneAt.Store(&now)
		})

		for _, m := range c.Members() {
			if err := c.SetLink(m.Name(), "c1", cluster.Delayed(delay, 0)); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case <-g.Done():
			t.Fatalf("Done closed while answers were only delayed by %v (TTL %v): %v", delay, ttl, g.Err())
		case <-time.After(3 * ttl):
		}
		if left := remaining(t, ctx, obs, g.ID()); left < 0 {
			t.Fatalf("lease %x gone on the cluster while its guard was alive", g.ID())
		}

		if err := c.Isolate("c1"); err != nil {
			t.Fatal(err)
		}
		cutAt := time.Now()
		t.Cleanup(func() {
			if err := c.Heal("c1"); err != nil {
				t.Error(err)
			}
		})

		var goneAt time.Time
		clustertest.Eventually(t, ctx, "the observer sees the lease gone", func(ctx context.Context) error {
			sent := time.Now()
			if err := gone(ctx, obs, g.ID()); err != nil {
				return err
			}
			goneAt = sent
			return nil
		})
		select {
		case <-g.Done():
		case <-ctx.Done():
			t.Fatal("Done still open after the lease was gone on the cluster")
		}
		if err := g.Err(); !errors.Is(err, lease.ErrLost) {
			t.Errorf("Err = %v, want ErrLost", err)
		}
		var done time.Time
		clustertest.Eventually(t, ctx, "the AfterFunc notes when Done closed", func(context.Context) error {
			if p := doneAt.Load(); p != nil {
				done = *p
				return nil
			}
			return errors.New("not yet")
		})
		t.Logf("after the cut: Done closed at %v, the observer saw the lease gone at %v (TTL %v, answers delayed %v)",
			done.Sub(cutAt).Round(time.Millisecond), goneAt.Sub(cutAt).Round(time.Millisecond), ttl, delay)
		if done.After(cutAt.Add(ttl)) {
			t.Errorf("Done closed %v after the cut, more than a TTL (%v)", done.Sub(cutAt), ttl)
		}
		if !done.Before(goneAt) {
			t.Errorf("Done closed %v after the observer saw the lease gone", done.Sub(goneAt))
		}
	})
}
