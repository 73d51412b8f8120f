package barrier

import (
	"errors"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
)

func TestPlainBadInput(t *testing.T) {
	if _, err := LookupPlain("chekced"); !errors.Is(err, ErrUnknownRecipe) || !strings.Contains(err.Error(), "checked") {
		t.Errorf("LookupPlain(chekced) = %v, want ErrUnknownRecipe naming checked", err)
	}
	for _, r := range append(PlainRecipes(), UpstreamPlainRecipes()...) {
		if _, err := r.New(nil, "b"); err == nil || !strings.Contains(err.Error(), "nil client") {
			t.Errorf("%s: nil client: %v, want an error saying so", r.Name, err)
		}
		if _, err := r.New(&clientv3.Client{}, ""); !errors.Is(err, ErrBadName) || !strings.Contains(err.Error(), "want a name") {
			t.Errorf("%s: empty name: %v, want ErrBadName saying what is valid", r.Name, err)
		}
	}
}

// Every recipe: a wait at a barrier never held returns at once, a hold of
// a held barrier is refused, and a wait returns once the barrier is
// released.
func TestPlainHoldReleaseWait(t *testing.T) {
	for _, r := range append(PlainRecipes(), UpstreamPlainRecipes()...) {
		t.Run(r.Name, func(t *testing.T) {
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, testCluster)
				ctx := clustertest.Context(t)
				holder, err := r.New(clustertest.Client(t, c, "h"), "deploy")
				if err != nil {
					t.Fatal(err)
				}
				waiter, err := r.New(clustertest.Client(t, c, "w"), "deploy")
				if err != nil {
					t.Fatal(err)
				}
				if err := waiter.Wait(ctx); err != nil {
					t.Fatalf("wait at a barrier never held: %v", err)
				}
				if err := holder.Hold(ctx); err != nil {
					t.Fatal(err)
				}
				if err := waiter.Hold(ctx); !errors.Is(err, ErrHeld) {
					t.Errorf("hold of a held barrier: %v, want ErrHeld", err)
				}
				start := time.Now()
				released := make(chan error, 1)
				go func() {
					time.Sleep(200 * time.Millisecond)
					released <- holder.Release(ctx)
				}()
				if err := waiter.Wait(ctx); err != nil {
					t.Fatal(err)
				}
				if d := time.Since(start); d < 200*time.Millisecond {
					t.Errorf("the wait returned %v after the hold, before the release at 200ms", d)
				}
				if err := <-released; err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

// A waiter whose links are slow reads the barrier up, and the release
// lands before its watch begins: checked, watching from the read's
// revision, sees it; unpinned-watch, watching from now, sleeps on.
func TestReleaseBetweenReadAndWatch(t *testing.T) {
	for _, tt := range []struct {
		name  string
		woken bool
	}{{"checked", true}, {"unpinned-watch", false}} {
		t.Run(tt.name, func(t *testing.T) {
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{Latency: time.Millisecond, Members: 3})
				ctx := clustertest.Context(t)
				r, err := LookupPlain(tt.name)
				if err != nil {
					t.Fatal(err)
				}
				holder, _ := r.New(clustertest.Client(t, c, "h"), "deploy")
				waiter, _ := r.New(clustertest.Client(t, c, "w"), "deploy")
				if err := holder.Hold(ctx); err != nil {
					t.Fatal(err)
				}
				for _, m := range c.Members() {
					if err := c.SetLinks("w", m.Name(), cluster.Delayed(300*time.Millisecond, 0)); err != nil {
						t.Fatal(err)
					}
				}
				done := make(chan error, 1)
				go func() { done <- waiter.Wait(ctx) }()
				time.Sleep(900 * time.Millisecond) // the waiter's read is answered, its watch not yet begun
				if err := holder.Release(ctx); err != nil {
					t.Fatal(err)
				}
				select {
				case err := <-done:
					if !tt.woken || err != nil {
						t.Errorf("wait returned %v; want it still waiting", err)
					}
				case <-time.After(4 * time.Second):
					if tt.woken {
						t.Errorf("still waiting 4 s after the release")
					}
				}
				c.Heal("w")
				if !tt.woken {
					if err := holder.Hold(ctx); err != nil {
						t.Fatal(err)
					}
					if err := holder.Release(ctx); err != nil {
						t.Fatal(err)
					}
					if err := <-done; err != nil {
						t.Errorf("the next release: %v", err)
					}
				}
			})
		})
	}
}
