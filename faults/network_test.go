package faults_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Isolating the leader: the majority elects a new leader with a higher
// term, and the old leader, though it may still think it leads, cannot
// commit.
func TestIsolateLeader(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3)
		old, err := c.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		oldTerm := old.Term()
		heal := inject(ctx, t, env, faults.Isolate(faults.Leader))

		clustertest.Eventually(t, ctx, "a new leader on the majority side", func(ctx context.Context) error {
			lead, err := c.Leader(ctx)
			if err != nil {
				return err
			}
			if lead == old {
				return fmt.Errorf("%s still leads", old.Name())
			}
			if lead.Term() <= oldTerm {
				return fmt.Errorf("new leader %s in term %d, not above %d", lead.Name(), lead.Term(), oldTerm)
			}
			return nil
		})
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = clustertest.Observer(t, old).Put(pctx, "through-old-leader", "x")
		cancel()
		if err == nil {
			t.Fatalf("a write through the isolated old leader %s committed", old.Name())
		}
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		healthy(ctx, t, c)
		resp, err := clustertest.Observer(t, c.Members()...).Get(ctx, "through-old-leader")
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Kvs) != 0 {
			t.Errorf("the write through the isolated old leader is visible after the heal: %v", resp.Kvs)
		}
		checkEvent(t, lastEvent(t, env), "isolate(leader)", []string{old.Name()})
		if links := c.Links(); len(links) != 0 {
			t.Errorf("links still faulty after the heal: %v", links)
		}
	})
}

// A ring of overlapping majorities on 5 members: every member reaches a
// majority, but only those next to the leader can commit through it.
func TestRing(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 5)
		heal := inject(ctx, t, env, faults.Ring())
		if got := len(c.Links()); got != 10 {
			t.Errorf("%d links cut, want 10 (5 pairs two hops apart, both ways): %v", got, c.Links())
		}
		clustertest.Eventually(t, ctx, "some members commit and some do not", func(ctx context.Context) error {
			ok, failed := commitThrough(ctx, t, c)
			if len(ok) == 0 || len(failed) == 0 {
				return fmt.Errorf("writes committed through %v and failed through %v", ok, failed)
			}
			t.Logf("writes committed through %v and failed through %v", ok, failed)
			return nil
		})
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		healthy(ctx, t, c)
		ev := lastEvent(t, env)
		checkEvent(t, ev, "ring", []string{"m0", "m1", "m2", "m3", "m4"})
		t.Log(ev.Detail)
	})
}

// commitThrough tries one write through each member and sorts the members
// by whether it committed.
func commitThrough(ctx context.Context, t *testing.T, c *cluster.Cluster) (ok, failed []string) {
	t.Helper()
	type result struct {
		name string
		err  error
	}
	members := c.Members()
	results := make(chan result, len(members))
	for _, m := range members {
		cli := clustertest.Observer(t, m)
		go func() {
			pctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			_, err := cli.Put(pctx, "ring/"+m.Name(), "x")
			results <- result{m.Name(), err}
		}()
	}
	for range members {
		r := <-results
		if r.err == nil {
			ok = append(ok, r.name)
		} else {
			failed = append(failed, r.name)
		}
	}
	slices.Sort(ok)
	slices.Sort(failed)
	return ok, failed
}

// A one-way cut from the leader to a follower: the follower stops hearing
// its leader, while the leader and the other follower go on committing.
func TestCut(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3)
		lead, err := c.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		heal := inject(ctx, t, env, faults.Cut(faults.Leader, faults.Follower))
		ev := lastEvent(t, env)
		if len(ev.Targets) != 2 || ev.Targets[0] != lead.Name() {
			t.Fatalf("cut resolved to %v; want the leader %s then a follower", ev.Targets, lead.Name())
		}
		follower, err := c.Member(ev.Targets[1])
		if err != nil {
			t.Fatal(err)
		}
		links := c.Links()
		if len(links) != 1 || links[0].From != lead.Name() || links[0].To != follower.Name() {
			t.Errorf("faulty links %v; want only %s→%s", links, lead.Name(), follower.Name())
		}
		clustertest.Eventually(t, ctx, "the cut follower loses its leader", func(context.Context) error {
			if id := follower.LeaderID(); id == lead.ID() {
				return fmt.Errorf("%s still follows %s", follower.Name(), lead.Name())
			}
			return nil
		})
		if _, err := clustertest.Observer(t, lead).Put(ctx, "cut", "x"); err != nil {
			t.Errorf("the leader cannot commit while it only cannot reach one follower: %v", err)
		}
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		healthy(ctx, t, c)
		checkEvent(t, lastEvent(t, env), "cut(leader → follower)", ev.Targets)
	})
}

// Partition(Minority) on 3 members cuts one member off from the two
// others; the two keep a leader and commit, the one cannot.
func TestPartitionMinority(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1")
		heal := inject(ctx, t, env, faults.Partition(faults.Minority))
		ev := lastEvent(t, env)
		if len(ev.Targets) != 1 {
			t.Fatalf("minority of 3 resolved to %v; want one member", ev.Targets)
		}
		if got := len(c.Links()); got != 4 {
			t.Errorf("%d links cut, want 4: %v", got, c.Links())
		}
		alone, err := c.Member(ev.Targets[0])
		if err != nil {
			t.Fatal(err)
		}
		clustertest.Eventually(t, ctx, "the majority commits and the minority does not", func(ctx context.Context) error {
			ok, failed := commitThrough(ctx, t, c)
			if !equal(failed, []string{alone.Name()}) {
				return fmt.Errorf("writes committed through %v and failed through %v; want failed only through %s", ok, failed, alone.Name())
			}
			return nil
		})
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		healthy(ctx, t, c)
		checkEvent(t, lastEvent(t, env), "partition(minority)", ev.Targets)
	})
}

// Isolating a client cuts it off from every member; other clients go on.
func TestIsolateClient(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1", "c2")
		c1, c2 := clustertest.Client(t, c, "c1"), clustertest.Client(t, c, "c2")
		warm(ctx, t, c1, c2)
		heal := inject(ctx, t, env, faults.Isolate(faults.Client("c1")))
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := c1.Put(pctx, "isolated", "c1")
		cancel()
		if err == nil {
			t.Error("the isolated client's write succeeded")
		}
		if _, err := c2.Put(ctx, "isolated", "c2"); err != nil {
			t.Errorf("another client's write failed: %v", err)
		}
		if got := len(c.Links()); got != 6 {
			t.Errorf("%d links cut, want 6 (c1 to and from 3 members): %v", got, c.Links())
		}
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		clustertest.Eventually(t, ctx, "the client works again", func(ctx context.Context) error {
			_, err := c1.Put(ctx, "isolated", "c1 again")
			return err
		})
		checkEvent(t, lastEvent(t, env), "isolate(client c1)", []string{"c1"})
	})
}

// warm makes each client connect before a fault, so that a fault on its
// responses finds a connection already up.
func warm(ctx context.Context, t *testing.T, clis ...*clientv3.Client) {
	t.Helper()
	for _, cli := range clis {
		if _, err := cli.Put(ctx, "warm", "x"); err != nil {
			t.Fatal(err)
		}
	}
}

// Delay slows a client's every request and answer.
func TestDelayClient(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1")
		c1 := clustertest.Client(t, c, "c1")
		warm(ctx, t, c1)
		heal := inject(ctx, t, env, faults.Delay(faults.Client("c1"), 150*time.Millisecond, 50*time.Millisecond))
		for _, l := range c.Links() {
			if l.Condition != cluster.Delayed(150*time.Millisecond, 50*time.Millisecond) {
				t.Errorf("link %v; want delay 150ms±50ms", l)
			}
		}
		began := time.Now()
		if _, err := c1.Put(ctx, "slow", "x"); err != nil {
			t.Fatal(err)
		}
		// A request and its answer each wait at least 100ms.
		if took := time.Since(began); took < 200*time.Millisecond {
			t.Errorf("a write through delayed links took %v; want at least 200ms", took)
		}
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		if links := c.Links(); len(links) != 0 {
			t.Errorf("links still faulty after the heal: %v", links)
		}
		checkEvent(t, lastEvent(t, env), "delay(client c1, 150ms±50ms)", []string{"c1"})
	})
}

// Reset makes the members refuse a client's connections.
func TestResetClient(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1")
		c1 := clustertest.Client(t, c, "c1")
		warm(ctx, t, c1)
		heal := inject(ctx, t, env, faults.Reset(faults.Client("c1")))
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := c1.Put(pctx, "reset", "x")
		cancel()
		if err == nil {
			t.Error("a write through reset connections succeeded")
		}
		for _, l := range c.Links() {
			if l.Condition != cluster.Rejecting() {
				t.Errorf("link %v; want reject", l)
			}
		}
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		clustertest.Eventually(t, ctx, "the client works again", func(ctx context.Context) error {
			_, err := c1.Put(ctx, "reset", "again")
			return err
		})
		checkEvent(t, lastEvent(t, env), "reset(client c1)", []string{"c1"})
	})
}

// Lost responses: the write is applied, another client sees it, and its
// caller got an error.
func TestLoseResponses(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1", "c2")
		c1, c2 := clustertest.Client(t, c, "c1"), clustertest.Client(t, c, "c2")
		warm(ctx, t, c1, c2)
		heal := inject(ctx, t, env, faults.LoseResponses(faults.Client("c1")))
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := c1.Put(pctx, "lost", "applied")
		cancel()
		if err == nil {
			t.Fatal("the caller heard back from a write whose response was lost")
		}
		t.Logf("the caller got: %v", err)
		clustertest.Eventually(t, ctx, "another client sees the write", func(ctx context.Context) error {
			resp, err := c2.Get(ctx, "lost")
			if err != nil {
				return err
			}
			if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "applied" {
				return fmt.Errorf("c2 reads %v", resp.Kvs)
			}
			return nil
		})
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		clustertest.Eventually(t, ctx, "the client hears back again", func(ctx context.Context) error {
			_, err := c1.Get(ctx, "lost")
			return err
		})
		checkEvent(t, lastEvent(t, env), "lose-responses(client c1)", []string{"c1"})
	})
}

// Overlapping faults on one link heal in any order without undoing each
// other: the leader's isolation and a client's isolation share the link
// between them, and it stays cut until both are healed.
func TestOverlappingLinkFaults(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1")
		lead, err := c.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		healLeader := inject(ctx, t, env, faults.Isolate(faults.Member(memberIndex(t, lead.Name()))))
		healClient := inject(ctx, t, env, faults.Isolate(faults.Client("c1")))
		if err := healLeader(ctx); err != nil {
			t.Fatal(err)
		}
		for _, l := range [][2]string{{lead.Name(), "c1"}, {"c1", lead.Name()}} {
			cond, err := c.LinkCondition(l[0], l[1])
			if err != nil {
				t.Fatal(err)
			}
			if cond != cluster.Blackholed() {
				t.Errorf("link %s→%s is %v while c1 is still isolated; want blackhole", l[0], l[1], cond)
			}
		}
		if got := len(c.Links()); got != 6 {
			t.Errorf("%d links faulty with only c1 isolated, want 6: %v", got, c.Links())
		}
		if err := healClient(ctx); err != nil {
			t.Fatal(err)
		}
		if links := c.Links(); len(links) != 0 {
			t.Errorf("links still faulty after both heals: %v", links)
		}
	})
}

// A fault holds its links in an overlay on the cluster's links, so what a
// test sets on the cluster directly while the fault lasts outlives the
// fault's heal: the heal takes off the fault's conditions, not the links'.
func TestFaultHealKeepsDirectLinkCalls(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1")
		slow := cluster.Delayed(20*time.Millisecond, 0)
		heal := inject(ctx, t, env, faults.Delay(faults.Member(0), slow.Delay, 0))
		if err := c.Isolate("m0"); err != nil {
			t.Fatal(err)
		}
		if got, err := c.LinkCondition("m0", "m1"); err != nil || got != slow {
			t.Errorf("m0→m1 is %v (%v) while the delay lasts; want %v", got, err, slow)
		}
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		var want []cluster.Link
		for _, p := range []string{"c1", "m1", "m2"} {
			want = append(want, cluster.Link{From: "m0", To: p, Condition: cluster.Blackholed()})
		}
		for _, p := range []string{"c1", "m1", "m2"} {
			want = append(want, cluster.Link{From: p, To: "m0", Condition: cluster.Blackholed()})
		}
		slices.SortFunc(want, func(a, b cluster.Link) int { return strings.Compare(a.From+" "+a.To, b.From+" "+b.To) })
		if diff := cmp.Diff(want, c.Links()); diff != "" {
			t.Errorf("after the delay healed, m0 should stay isolated (-want +got):\n%s", diff)
		}
		if err := c.HealAll(); err != nil {
			t.Fatal(err)
		}

		// Heal on the cluster heals a fault's links at once; a condition set
		// after it is not undone by the fault's own heal.
		heal = inject(ctx, t, env, faults.Isolate(faults.Client("c1")))
		if err := c.Heal("c1"); err != nil {
			t.Fatal(err)
		}
		if links := c.Links(); len(links) != 0 {
			t.Errorf("after Heal(c1), faulty links remain: %v", links)
		}
		if err := c.SetLink("m0", "c1", cluster.Rejecting()); err != nil {
			t.Fatal(err)
		}
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		want = []cluster.Link{{From: "m0", To: "c1", Condition: cluster.Rejecting()}}
		if diff := cmp.Diff(want, c.Links()); diff != "" {
			t.Errorf("after the isolate healed (-want +got):\n%s", diff)
		}
	})
}

func memberIndex(t *testing.T, name string) int {
	t.Helper()
	var i int
	if _, err := fmt.Sscanf(name, "m%d", &i); err != nil {
		t.Fatal(err)
	}
	return i
}
