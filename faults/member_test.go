package faults_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
)

// Kill crashes the leader: the others elect a new one; the heal restarts
// the killed member, which rejoins.
func TestKillLeader(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3)
		old, err := c.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		heal := inject(ctx, t, env, faults.Kill(faults.Leader))
		if old.Running() {
			t.Fatalf("killed leader %s still runs", old.Name())
		}
		clustertest.Eventually(t, ctx, "a new leader", func(ctx context.Context) error {
			lead, err := c.Leader(ctx)
			if err != nil {
				return err
			}
			if lead == old {
				return fmt.Errorf("%s still leads", old.Name())
			}
			return nil
		})
		if _, err := clustertest.Observer(t, c.Members()...).Put(ctx, "after-kill", "x"); err != nil {
			t.Errorf("the two survivors cannot commit: %v", err)
		}
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		if !old.Running() {
			t.Fatalf("the heal did not restart %s", old.Name())
		}
		healthy(ctx, t, c)
		checkEvent(t, lastEvent(t, env), "kill(leader)", []string{old.Name()})
	})
}

// Stop shuts a follower down gracefully; the heal starts it again.
func TestStopFollower(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3)
		heal := inject(ctx, t, env, faults.Stop(faults.Follower))
		ev := lastEvent(t, env)
		m, err := c.Member(ev.Targets[0])
		if err != nil {
			t.Fatal(err)
		}
		if m.Running() || m.IsLeader() {
			t.Fatalf("stopped follower %s runs or leads", m.Name())
		}
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		healthy(ctx, t, c)
		checkEvent(t, lastEvent(t, env), "stop(follower)", ev.Targets)
	})
}

// Replace removes a follower and adds a fresh member while a client keeps
// writing; the writes go on and the cluster ends with three members, the
// old one gone.
func TestReplaceFollower(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		if testing.Short() {
			t.Skip("a member change waits out etcd's 5s reconfiguration check")
		}
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1")
		c1 := clustertest.Client(t, c, "c1")
		stop := make(chan struct{})
		done := make(chan int)
		go func() { // traffic while the member is replaced
			n := 0
			for {
				select {
				case <-stop:
					done <- n
					return
				default:
				}
				pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				if _, err := c1.Put(pctx, "traffic", fmt.Sprint(n)); err == nil {
					n++
				}
				cancel()
				// A write takes no virtual time on the in-memory network: without
				// a pause, writing would keep the clock from ever moving.
				time.Sleep(10 * time.Millisecond)
			}
		}()
		_, err := env.Inject(ctx, faults.Replace(faults.Follower))
		close(stop)
		writes := <-done
		if err != nil {
			t.Fatal(err)
		}
		ev := lastEvent(t, env)
		t.Logf("%s; %d writes during it", describe(ev), writes)
		if writes == 0 {
			t.Error("no write succeeded while the member was replaced")
		}
		var names []string
		for _, m := range c.Members() {
			names = append(names, m.Name())
		}
		if len(names) != 3 {
			t.Errorf("members after the replacement: %v; want 3", names)
		}
		for _, n := range names {
			if n == ev.Targets[0] {
				t.Errorf("the replaced member %s is still a member: %v", n, names)
			}
		}
		healthy(ctx, t, c)
		checkEvent(t, ev, "replace(follower)", ev.Targets)
	})
}
