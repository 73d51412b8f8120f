package rwmutex

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/lock"
)

// Lookup finds every upstream recipe; Recipes, the gallery, lists none.
func TestUpstreamRegistry(t *testing.T) {
	up := UpstreamRecipes()
	if len(up) == 0 {
		t.Fatal("no upstream recipes")
	}
	for _, r := range up {
		if got, err := Lookup(r.Name); err != nil || got.Name != r.Name {
			t.Errorf("Lookup(%q) = %q, %v", r.Name, got.Name, err)
		}
		if slices.ContainsFunc(Recipes(), func(g Recipe) bool { return g.Name == r.Name }) {
			t.Errorf("Recipes lists upstream recipe %s", r.Name)
		}
	}
}

func TestBadInput(t *testing.T) {
	if _, err := Lookup("chekced"); !errors.Is(err, ErrUnknownRecipe) {
		t.Errorf("Lookup(chekced) = %v, want ErrUnknownRecipe", err)
	}
	if _, err := NewChecked(nil, "x", lock.Options{}); err == nil {
		t.Error("NewChecked(nil client): no error")
	}
	if _, err := NewChecked(&clientv3.Client{}, "", lock.Options{}); !errors.Is(err, ErrBadName) {
		t.Errorf("empty name: %v, want ErrBadName", err)
	}
	if _, err := NewChecked(&clientv3.Client{}, "x", lock.Options{TTL: 1500 * time.Millisecond}); !errors.Is(err, ErrBadTTL) {
		t.Errorf("TTL 1.5s: %v, want ErrBadTTL", err)
	}
}

func newLocker(t *testing.T, name string, cli *clientv3.Client) Locker {
	t.Helper()
	r, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := r.New(cli, "rw", lock.Options{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// returns reports whether f returns within d of virtual time, and its
// result if it did. If it did not, it cancels f's context and waits for
// f to give up.
func returns(ctx context.Context, d time.Duration, f func(ctx context.Context) (lock.Held, error)) (lock.Held, error, bool) {
	type res struct {
		h   lock.Held
		err error
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan res, 1)
	go func() { h, err := f(fctx); ch <- res{h, err} }()
	select {
	case r := <-ch:
		return r.h, r.err, true
	case <-time.After(d):
		cancel()
		<-ch
		return nil, nil, false
	}
}

// Readers share; a writer waits for them; a reader that comes after a
// waiting writer waits for it; a Lock whose context ends returns and
// leaves nothing behind.
func TestExclusion(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, testCluster)
		ctx := clustertest.Context(t)
		r1 := newLocker(t, "checked", clustertest.Client(t, c, "r1"))
		r2 := newLocker(t, "checked", clustertest.Client(t, c, "r2"))
		w := newLocker(t, "checked", clustertest.Client(t, c, "w"))

		h1, err := r1.RLock(ctx)
		if err != nil {
			t.Fatal(err)
		}
		h2, err := r2.RLock(ctx)
		if err != nil {
			t.Fatal("a second reader waited:", err)
		}
		if h1.Token() == 0 || h2.Token() <= h1.Token() {
			t.Errorf("tokens %d, %d: want growing create revisions", h1.Token(), h2.Token())
		}
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		if _, err := w.Lock(wctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a writer among readers: %v, want the deadline", err)
		}
		cancel()
		if err := h1.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		got := make(chan lock.Held, 1)
		go func() {
			h, err := w.Lock(ctx)
			if err != nil {
				t.Error(err)
			}
			got <- h
		}()
		time.Sleep(time.Second)
		if _, _, ok := returns(ctx, time.Second, r1.RLock); ok {
			t.Fatal("a reader passed a waiting writer")
		}
		if err := h2.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		hw := <-got
		if hw == nil {
			return
		}
		if err := hw.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := hw.Unlock(ctx); !errors.Is(err, lock.ErrNotHeld) {
			t.Errorf("second Unlock: %v, want ErrNotHeld", err)
		}
	})
}

// etcd #16221 on v3.7.3: a writer waits behind another; its session's
// lease is revoked; the holder unlocks. Upstream's Lock returns nil with
// the waiter's key gone, and a third writer takes the lock as well. The
// checked recipe's Lock says the session expired.
func TestRevokedWhileWaiting(t *testing.T) {
	for _, tt := range []struct {
		recipe  string
		twoHold bool
	}{
		{recipe: "unchecked", twoHold: true},
		{recipe: "checked", twoHold: false},
	} {
		t.Run(tt.recipe, func(t *testing.T) {
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, testCluster)
				ctx := clustertest.Context(t)
				a := newLocker(t, tt.recipe, clustertest.Client(t, c, "a"))
				b := newLocker(t, tt.recipe, clustertest.Client(t, c, "b"))
				third := newLocker(t, tt.recipe, clustertest.Client(t, c, "c"))
				admin := clustertest.Client(t, c, "admin")

				ha, err := a.Lock(ctx)
				if err != nil {
					t.Fatal(err)
				}
				lease, err := b.(Sessioner).Session(ctx)
				if err != nil {
					t.Fatal(err)
				}
				type res struct {
					h   lock.Held
					err error
				}
				bc := make(chan res, 1)
				go func() { h, err := b.Lock(ctx); bc <- res{h, err} }()
				time.Sleep(500 * time.Millisecond) // b waits behind a
				if _, err := admin.Revoke(ctx, lease); err != nil {
					t.Fatal(err)
				}
				if err := ha.Unlock(ctx); err != nil {
					t.Fatal(err)
				}
				rb := <-bc
				if !tt.twoHold {
					if !errors.Is(rb.err, ErrExpired) {
						t.Fatalf("b's Lock: %v, want ErrExpired", rb.err)
					}
					return
				}
				if rb.err != nil {
					t.Fatalf("b's Lock: %v; etcd #16221 has it return nil", rb.err)
				}
				hc, err, ok := returns(ctx, 5*time.Second, third.Lock)
				if !ok || err != nil {
					t.Fatalf("c's Lock while b believes it holds: returned %v, %v; etcd #16221 lets it in", ok, err)
				}
				hc.Unlock(ctx)   //nolint:errcheck // only the overlap matters
				rb.h.Unlock(ctx) //nolint:errcheck
			})
		})
	}
}

// etcd #6408 (fixed in 2016): a writer waiting behind readers polled etcd
// without end after the first of them unlocked. On v3.7.3 each release the
// waiter sees costs it one read and one watch, and a wait with no release
// costs nothing.
func TestWaitRequests(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, testCluster)
		ctx := clustertest.Context(t)
		var readers []lock.Held
		for _, name := range []string{"r1", "r2", "r3"} {
			h, err := newLocker(t, "checked", clustertest.Client(t, c, name)).RLock(ctx)
			if err != nil {
				t.Fatal(err)
			}
			readers = append(readers, h)
		}
		w := newLocker(t, "checked", clustertest.Client(t, c, "w"))
		done := make(chan lock.Held, 1)
		go func() {
			h, err := w.Lock(ctx)
			if err != nil {
				t.Error(err)
			}
			done <- h
		}()
		time.Sleep(time.Second)
		counter := w.(RequestCounter)
		settled := counter.Requests()
		time.Sleep(10 * time.Second)
		if idle := counter.Requests() - settled; idle != 0 {
			t.Errorf("a writer waiting 10s with no release sent %d requests, want 0", idle)
		}
		for i, h := range readers {
			before := counter.Requests()
			if err := h.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second)
			if i < len(readers)-1 {
				if n := counter.Requests() - before; n > 2 {
					t.Errorf("release %d cost the waiter %d requests, want at most a read and a watch", i+1, n)
				}
			}
		}
		if h := <-done; h != nil {
			h.Unlock(ctx) //nolint:errcheck
		}
		t.Logf("the waiter sent %d requests in all", counter.Requests())
	})
}

// testCluster has latency on every link: the recipes name their keys by
// time.Now().UnixNano(), and on the virtual clock two requests without
// latency happen at one instant, so a second key would collide with the
// first for ever.
var testCluster = cluster.Config{Latency: time.Millisecond}
