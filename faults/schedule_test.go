package faults_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/seed"
	"github.com/google/go-cmp/cmp"
)

// mix is a nemesis mix whose targets depend only on the membership and
// the random source, not on who leads, so a run fires what its plan says.
func mix() []faults.Choice {
	return []faults.Choice{
		faults.Weighted(3, faults.Partition(faults.Minority)),
		faults.Weighted(2, faults.Kill(faults.Minority)),
		faults.Weighted(2, faults.Isolate(faults.Majority)),
		faults.Weighted(1, faults.Stop(faults.Minority)),
		faults.Weighted(1, faults.Delay(faults.Minority, 20*time.Millisecond, 10*time.Millisecond)),
		faults.Weighted(1, faults.Pause(faults.AllClients)),
		faults.Weighted(1, faults.Compact()),
	}
}

// The same seed gives the same faults, durations and targets; another
// seed gives others.
func TestPlanDeterministic(t *testing.T) {
	ctx := clustertest.Context(t)
	_, env := start(t, 5, "c1", "c2")
	plan := func(s faults.Schedule) []faults.Planned {
		t.Helper()
		p, err := s.Plan(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	nem := func(seed seed.Seed) faults.Schedule {
		return faults.Nemesis{Seed: seed, Mix: append(mix(), faults.Weighted(2, faults.Kill(faults.Follower)), faults.Weighted(1, faults.Ring())),
			MinFor: 100 * time.Millisecond, MaxFor: 2 * time.Second, Quiet: 100 * time.Millisecond, Steps: 30}
	}
	tl := func(seed seed.Seed) faults.Schedule {
		return faults.Timeline{Seed: seed, Steps: []faults.Step{
			faults.At(0, time.Second, faults.Isolate(faults.Follower)),
			faults.At(2*time.Second, time.Second, faults.Partition(faults.Minority)),
			faults.At(4*time.Second, time.Second, faults.Kill(faults.Majority)),
		}}
	}
	for _, tt := range []struct {
		name     string
		schedule func(seed seed.Seed) faults.Schedule
	}{
		{"nemesis", nem},
		{"timeline", tl},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := plan(tt.schedule(42)), plan(tt.schedule(42))
			if diff := cmp.Diff(a, b); diff != "" {
				t.Errorf("two plans from seed 42 differ (-first +second):\n%s", diff)
			}
			if len(a) == 0 {
				t.Fatal("empty plan")
			}
			for _, p := range a {
				if p.Err != "" {
					t.Errorf("planned %s: %s", p.Fault, p.Err)
				}
			}
			other := plan(tt.schedule(43))
			if cmp.Equal(a, other) {
				t.Errorf("seeds 42 and 43 give the same plan:\n%v", a)
			}
		})
	}
}

// A nemesis run fires the faults of its plan, on the planned targets, and
// leaves the cluster healthy.
func TestNemesisRunsItsPlan(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1", "c2")
		steps := 6
		if testing.Short() {
			steps = 3
		}
		nem := faults.Nemesis{Seed: 2026, Mix: mix(), MinFor: 200 * time.Millisecond, MaxFor: 600 * time.Millisecond, Quiet: 200 * time.Millisecond, Steps: steps}
		plan, err := nem.Plan(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range plan {
			t.Logf("planned at %v for %v: %s on %v", p.At, p.For, p.Fault, p.Targets)
		}
		if err := nem.Run(ctx, env); err != nil {
			t.Fatal(err)
		}
		type fired struct {
			Fault   string
			Targets []string
		}
		var want, got []fired
		for _, p := range plan {
			want = append(want, fired{p.Fault, p.Targets})
		}
		for _, ev := range env.Log().Events() {
			got = append(got, fired{ev.Name, ev.Targets})
			if !ev.Healed || ev.Err != "" {
				t.Errorf("event not healed cleanly: %s", describe(ev))
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the run fired other faults than its plan (-plan +run):\n%s", diff)
		}
		healthy(ctx, t, c)
	})
}

// Cancelling a run in the middle of its faults heals them all and leaves
// the cluster healthy.
func TestHealOnCancel(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1", "c2")
		injected := make(chan struct{})
		signal := faults.Custom("signal", faults.Client("c2"), func(context.Context, *faults.Env, []string) (faults.Heal, error) {
			close(injected)
			return nil, nil
		})
		tl := faults.Timeline{Steps: []faults.Step{
			faults.At(0, time.Hour, faults.Kill(faults.Follower)),
			faults.At(0, time.Hour, faults.Isolate(faults.Client("c1"))),
			faults.At(0, time.Hour, signal),
		}}
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- tl.Run(rctx, env) }()
		select {
		case <-injected:
		case err := <-done:
			t.Fatalf("the run ended before its faults were in: %v", err)
		}
		if down := downMembers(c); len(down) != 1 {
			t.Fatalf("members down during the run: %v; want one", down)
		}
		cancel()
		err := <-done
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v; want it to say it was cancelled", err)
		}
		if down := downMembers(c); len(down) != 0 {
			t.Errorf("members still down after a cancelled run: %v", down)
		}
		if links := c.Links(); len(links) != 0 {
			t.Errorf("links still faulty after a cancelled run: %v", links)
		}
		for _, ev := range env.Log().Events() {
			if !ev.Healed {
				t.Errorf("not healed: %s", describe(ev))
			}
		}
		healthy(ctx, t, c)
	})
}

// A panic inside a step still heals every active fault before it goes on
// up.
func TestHealOnPanic(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1")
		boom := faults.Custom("boom", faults.Client("c1"), func(context.Context, *faults.Env, []string) (faults.Heal, error) {
			panic("boom")
		})
		tl := faults.Timeline{Steps: []faults.Step{
			faults.At(0, time.Hour, faults.Partition(faults.Leader)),
			faults.At(0, time.Hour, faults.Kill(faults.Follower)),
			faults.At(100*time.Millisecond, time.Second, boom),
		}}
		recovered := make(chan any, 1)
		go func() {
			defer func() { recovered <- recover() }()
			tl.Run(ctx, env)
		}()
		if r := <-recovered; r != "boom" {
			t.Fatalf("recovered %v; want the step's panic", r)
		}
		if down := downMembers(c); len(down) != 0 {
			t.Errorf("members still down after a panic: %v", down)
		}
		if links := c.Links(); len(links) != 0 {
			t.Errorf("links still faulty after a panic: %v", links)
		}
		for _, ev := range env.Log().Events() {
			if !ev.Healed {
				t.Errorf("not healed: %s", describe(ev))
			}
		}
		healthy(ctx, t, c)
	})
}

func downMembers(c *cluster.Cluster) []string {
	var down []string
	for _, m := range c.Members() {
		if !m.Running() {
			down = append(down, m.Name())
		}
	}
	return down
}

// Start refuses a bad schedule before it runs, and reports a panic in a
// running one as an error, after healing its faults.
func TestStart(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1")
		bad := faults.Timeline{Steps: []faults.Step{faults.At(0, 0, faults.Kill(faults.Leader))}}
		if _, err := faults.Start(ctx, env, bad); err == nil {
			t.Error("Start accepted a kill with no duration")
		}
		boom := faults.Custom("boom", faults.Client("c1"), func(context.Context, *faults.Env, []string) (faults.Heal, error) {
			panic("boom")
		})
		run, err := faults.Start(ctx, env, faults.Timeline{Steps: []faults.Step{
			faults.At(0, time.Hour, faults.Isolate(faults.Leader)),
			faults.At(50*time.Millisecond, time.Second, boom),
		}})
		if err != nil {
			t.Fatal(err)
		}
		if err := run.Wait(); err == nil || !strings.Contains(err.Error(), "panicked") {
			t.Errorf("Wait: %v; want the panic", err)
		}
		if links := c.Links(); len(links) != 0 {
			t.Errorf("links still faulty after a panic: %v", links)
		}
		healthy(ctx, t, c)
	})
}
