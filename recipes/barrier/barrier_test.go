package barrier

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/lock"
)

// testCluster has latency on every link: etcd's recipes name their keys by
// time.Now().UnixNano(), which on the virtual clock stands still between
// requests that take no time.
var testCluster = cluster.Config{Latency: time.Millisecond}

func TestBadInput(t *testing.T) {
	if _, err := Lookup("chekced"); !errors.Is(err, ErrUnknownRecipe) {
		t.Errorf("Lookup(chekced) = %v, want ErrUnknownRecipe", err)
	}
	for _, r := range append(Recipes(), UpstreamRecipes()...) {
		if _, err := r.New(nil, "b", 2, lock.Options{}); err == nil {
			t.Errorf("%s: nil client: no error", r.Name)
		}
		if _, err := r.New(&clientv3.Client{}, "", 2, lock.Options{}); !errors.Is(err, ErrBadName) {
			t.Errorf("%s: empty name: %v, want ErrBadName", r.Name, err)
		}
		for _, n := range []int{0, -3} {
			_, err := r.New(&clientv3.Client{}, "b", n, lock.Options{})
			if !errors.Is(err, ErrBadCount) || !strings.Contains(err.Error(), "want 1 or more") {
				t.Errorf("%s: count %d: %v, want ErrBadCount saying what is valid", r.Name, n, err)
			}
		}
		if _, err := r.New(&clientv3.Client{}, "b", 2, lock.Options{TTL: 1500 * time.Millisecond}); !errors.Is(err, ErrBadTTL) {
			t.Errorf("%s: TTL 1.5s: %v, want ErrBadTTL", r.Name, err)
		}
	}
}

// Three processes: nobody's Enter returns before the third has called it,
// nobody's Leave before the third has called it.
func TestTogether(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, testCluster)
		ctx := clustertest.Context(t)
		var parties []DoubleBarrier
		for _, name := range []string{"a", "b", "c"} {
			b, err := NewChecked(clustertest.Client(t, c, name), "phase", 3, lock.Options{TTL: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			parties = append(parties, b)
		}
		var mu sync.Mutex
		var events []string
		note := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
		var wg sync.WaitGroup
		for i, b := range parties {
			wg.Go(func() {
				time.Sleep(time.Duration(i) * 100 * time.Millisecond)
				note("call enter")
				if err := b.Enter(ctx); err != nil {
					t.Error(err)
					return
				}
				note("entered")
				time.Sleep(time.Duration(2-i) * 100 * time.Millisecond)
				note("call leave")
				if err := b.Leave(ctx); err != nil {
					t.Error(err)
					return
				}
				note("left")
			})
		}
		wg.Wait()
		lastCall := func(e string) int {
			r := slices.Clone(events)
			slices.Reverse(r)
			return len(events) - 1 - slices.Index(r, e)
		}
		for _, pass := range [][2]string{{"call enter", "entered"}, {"call leave", "left"}} {
			if lastCall(pass[0]) > slices.Index(events, pass[1]) {
				t.Errorf("a process %s before the last had made its %s: %v", pass[1], pass[0], events)
			}
		}
	})
}

// An Enter whose context ends returns the context's error, not nil, and
// gives up its key: a second try does not count the process twice.
func TestEnterGivesUp(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, testCluster)
		ctx := clustertest.Context(t)
		cli := clustertest.Client(t, c, "a")
		b, err := NewChecked(cli, "phase", 2, lock.Options{TTL: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		if err := b.Enter(wctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Enter alone: %v, want the deadline", err)
		}
		resp, err := cli.Get(ctx, DefaultPrefix+"phase/waiters", clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Count != 0 {
			t.Errorf("%d waiter keys left after a failed Enter, want 0", resp.Count)
		}
	})
}
