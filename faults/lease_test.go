package faults_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// Revoking the holder's session lease frees its lock at once: the key
// goes and the next client acquires, long before the lease's TTL.
func TestRevokeLease(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1", "c2")
		s1 := session(ctx, t, clustertest.Client(t, c, "c1"), 60)
		if err := concurrency.NewMutex(s1, "/locks/L").Lock(ctx); err != nil {
			t.Fatal(err)
		}
		acquired(ctx, env, "c1", "L", s1.Lease())
		inject(ctx, t, env, faults.RevokeLease(faults.LockHolder("L")))
		resp, err := clustertest.Observer(t, c.Members()...).TimeToLive(ctx, s1.Lease())
		if err != nil {
			t.Fatal(err)
		}
		if resp.TTL != -1 {
			t.Errorf("lease %x has TTL %d after the revoke; want gone (-1)", int64(s1.Lease()), resp.TTL)
		}
		// Long before its 60s TTL, a second client acquires.
		s2 := session(ctx, t, clustertest.Client(t, c, "c2"), 60)
		lctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := concurrency.NewMutex(s2, "/locks/L").Lock(lctx); err != nil {
			t.Fatalf("a second client could not acquire after the revoke: %v", err)
		}
		ev := lastEvent(t, env)
		checkEvent(t, ev, "revoke-lease(lock-holder L)", []string{"c1"})
		if !strings.Contains(ev.Detail, strconv.FormatInt(int64(s1.Lease()), 16)) {
			t.Errorf("event detail %q does not name lease %x", ev.Detail, int64(s1.Lease()))
		}

		// Revoking it again finds it gone: no error, and the event says so.
		inject(ctx, t, env, faults.RevokeLease(faults.LockHolder("L")))
		if ev := lastEvent(t, env); ev.Err != "" || !strings.Contains(ev.Detail, "already gone") {
			t.Errorf("revoking a revoked lease: event detail %q, error %q; want no error and \"already gone\"", ev.Detail, ev.Err)
		}
	})
}

// A leader-change storm keeps a crashed client's lease — and the lock it
// holds — alive past its TTL, because every new leader refreshes every
// lease (etcd #9395). Once the storm is over the lease expires and the
// lock goes to the next client.
func TestLeaderStormKeepsLeaseAlive(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1", "c2")
		const ttl = 2 // seconds
		s1 := session(ctx, t, clustertest.Client(t, c, "c1"), ttl)
		if err := concurrency.NewMutex(s1, "/locks/L").Lock(ctx); err != nil {
			t.Fatal(err)
		}
		s2 := session(ctx, t, clustertest.Client(t, c, "c2"), 60)
		m2 := concurrency.NewMutex(s2, "/locks/L")
		obs := clustertest.Observer(t, c.Members()...)

		// Checked by the scheduler at 5s, 2.5 TTLs after c1 "crashed".
		checked := make(chan error, 1)
		check := faults.Custom("check", faults.Client("c2"), func(ctx context.Context, _ *faults.Env, _ []string) (faults.Heal, error) {
			// Transient errors of a leader transfer are retried for at most
			// 700ms: the storm still runs then, so c1's lease is still being
			// refreshed and the answers cannot change.
			ctx, cancel := context.WithTimeout(ctx, 700*time.Millisecond)
			defer cancel()
			err := duringStorm(ctx, func() error {
				resp, err := obs.TimeToLive(ctx, s1.Lease())
				if err == nil && resp.TTL <= 0 {
					return fmt.Errorf("%w: c1's lease %x expired during the storm (TTL %d)", errDecided, int64(s1.Lease()), resp.TTL)
				}
				return err
			})
			if err == nil {
				err = duringStorm(ctx, func() error {
					switch err := m2.TryLock(ctx); {
					case errors.Is(err, concurrency.ErrLocked):
						return nil
					case err == nil:
						return fmt.Errorf("%w: c2's TryLock acquired the lock during the storm", errDecided)
					default:
						return err
					}
				})
			}
			checked <- err
			return nil, nil
		})
		tl := faults.Timeline{
			Seed: 7,
			Steps: []faults.Step{
				faults.At(0, 7*time.Second, faults.Isolate(faults.Client("c1"))), // c1 crashes: no more keepalives
				faults.At(0, 6*time.Second, faults.LeaderStorm(300*time.Millisecond)),
				faults.At(5*time.Second, time.Millisecond, check),
			},
		}
		if err := tl.Run(ctx, env); err != nil {
			t.Fatal(err)
		}
		if err := <-checked; err != nil {
			t.Fatal(err)
		}
		// After the storm, the lease runs out and c2 gets the lock.
		lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := m2.Lock(lctx); err != nil {
			t.Fatalf("c2 did not acquire after the storm: %v", err)
		}
		for _, ev := range env.Log().Events() {
			t.Log(describe(ev))
			if strings.HasPrefix(ev.Name, "leader-storm") && !strings.Contains(ev.Detail, "leader changes") {
				t.Errorf("storm event without its changes: %s", describe(ev))
			}
		}
	})
}

// A leader-kill storm kills leader after leader; after it every member is
// back and the cluster is healthy.
func TestLeaderKillStorm(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3)
		first, err := c.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		term := first.Term()
		tl := faults.Timeline{Steps: []faults.Step{faults.At(0, 3*time.Second, faults.LeaderKillStorm(500*time.Millisecond))}}
		if err := tl.Run(ctx, env); err != nil {
			t.Fatal(err)
		}
		ev := lastEvent(t, env)
		t.Log(describe(ev))
		checkEvent(t, ev, "leader-kill-storm(every 500ms)", []string{"m0", "m1", "m2"})
		// After a write commits, the leader's applied term is its current term.
		healthy(ctx, t, c)
		lead, err := c.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if lead.Term() < term+2 {
			t.Errorf("term went from %d to %d; want at least two elections", term, lead.Term())
		}
	})
}

// errDecided marks an error that retrying cannot change.
var errDecided = errors.New("decided")

// duringStorm calls f until it returns nil or an errDecided error, or ctx
// ends. In a leader storm a request may fail only because leadership moved
// under it ("raft proposal dropped", "leader changed"); such errors say
// nothing about the state under test. TryLock is safe to retry: its
// transaction creates the waiter's key only if it is missing.
func duringStorm(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil || errors.Is(err, errDecided) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("during the storm: %w (retried until %v)", err, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
