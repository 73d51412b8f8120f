package faults_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// A pause aimed at a lock's holder right after it acquires, longer than
// its session's TTL: its lease is gone on the server and a second client
// holds the lock before the first resumes — and the first, resumed,
// carries on as if it still held it.
func TestPauseLockHolder(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1", "c2")
		c1, c2 := clustertest.Client(t, c, "c1"), clustertest.Client(t, c, "c2")
		obs := clustertest.Observer(t, c.Members()...)
		const ttl = 1 // seconds, etcd's least with this cluster's 100ms elections
		pause := 6 * time.Second
		tl := faults.Timeline{
			Seed: 1,
			Triggers: []faults.Trigger{
				faults.On(faults.Match{Kind: checker.KindAcquire, Key: "L"}, pause, faults.Pause(faults.LockHolder("L"))),
			},
		}
		run, err := faults.Start(ctx, env, tl) // its trigger is armed when Start returns
		if err != nil {
			t.Fatal(err)
		}
		defer run.Stop()

		s1 := session(ctx, t, c1, ttl)
		if err := concurrency.NewMutex(s1, "/locks/L").Lock(ctx); err != nil {
			t.Fatal(err)
		}
		// The trigger pauses c1 before the recording call returns.
		acquired(ctx, env, "c1", "L", s1.Lease())
		if !env.Gate().Paused("c1") {
			t.Fatal("c1 is not paused after its acquire was recorded")
		}

		second := make(chan error, 1)
		go func() {
			s2 := session(ctx, t, c2, ttl)
			if err := concurrency.NewMutex(s2, "/locks/L").Lock(ctx); err != nil {
				second <- err
				return
			}
			// Still inside c1's pause: c1's lease must be gone by now.
			if !env.Gate().Paused("c1") {
				second <- fmt.Errorf("c2 acquired only after c1 resumed")
				return
			}
			resp, err := obs.TimeToLive(ctx, s1.Lease())
			switch {
			case err != nil:
				second <- err
			case resp.TTL != -1:
				second <- fmt.Errorf("c2 holds the lock while c1's lease %x lives on (TTL %d)", int64(s1.Lease()), resp.TTL)
			default:
				second <- nil
			}
		}()

		// c1's next step waits out the pause.
		if err := env.Gate().Step(ctx, "c1"); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-second:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatal("c1 resumed before a second client acquired its lock")
		}
		if err := run.Wait(); err != nil {
			t.Fatal(err)
		}
		ev := lastEvent(t, env)
		checkEvent(t, ev, "pause(lock-holder L)", []string{"c1"})
		if ev.End-ev.Start < pause {
			t.Errorf("the pause lasted %v; want at least %v", ev.End-ev.Start, pause)
		}
		t.Log(describe(ev))
		healthy(ctx, t, c)
	})
}

// session opens a session with the given TTL, closed when the test ends.
func session(ctx context.Context, t *testing.T, cli *clientv3.Client, ttl int) *concurrency.Session {
	t.Helper()
	s, err := concurrency.NewSession(cli, concurrency.WithTTL(ttl), concurrency.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
