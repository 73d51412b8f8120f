package lock

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"golang.org/x/sync/errgroup"
)

// Pitfall 3: the holder's network to etcd is cut. Its lease expires and
// the next waiter gets the lock while the hand-rolled keepalive is still
// retrying, so the holder, which works until its Done closes, is still at
// work: two holders.
//
// The document's schedule scaled to a 1 s TTL (250 ms beats and timeouts,
// 2 retries) gives up after 1.5 s, 1.5 TTLs, too close to etcd's own reaping
// (every 500 ms) to observe reliably on a loaded machine. Here each renewal
// waits 2 s, so the holder gives up 6.75 s after its last renewal: the
// same mistake, a window wide enough to see every time.
func TestPitfallMisconfiguredKeepalive(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	observer := clustertest.Client(t, c, "observer")
	ctx := clustertest.Context(t)
	ka := Keepalive{Heartbeat: 250 * time.Millisecond, Timeout: 2 * time.Second, Retries: 2}
	opts := Options{TTL: time.Second}
	if ka.GiveUp() <= opts.TTL {
		t.Fatalf("schedule gives up after %v, within the %v TTL: not the pitfall", ka.GiveUp(), opts.TTL)
	}
	newL := func(who string) Locker {
		l, err := NewMisconfiguredKeepalive(clustertest.Client(t, c, who), "p3", opts, ka)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	a, b := newL("a"), newL("b")
	var res Resource

	ha := mustLock(t, ctx, a)
	exitA := res.Enter("a")
	working := make(chan struct{})
	go func() { // a works until its Done closes
		defer close(working)
		<-ha.Done()
		exitA()
	}()
	bch := lockAsync(ctx, b)
	clustertest.WaitKeys(t, ctx, observer, DefaultPrefix+"p3/", 2)
	if err := c.Isolate("a"); err != nil {
		t.Fatal(err)
	}
	rb := <-bch
	if rb.err != nil {
		t.Fatalf("b: %v", rb.err)
	}
	exitB := res.Enter("b")
	if len(res.Overlaps()) == 0 {
		t.Errorf("b got the lock after a's lease expired, and a had stopped working: the keepalive gave up in time")
	}
	if clustertest.Closed(ha.Done()) {
		t.Errorf("a's Done closed before b got the lock")
	}
	exitB()
	unlock(t, ctx, rb.h, nil)
	resume := pause(t, c, "a") // already cut off; heals its links
	resume()
	unlock(t, ctx, ha, ErrNotHeld) // stops a's keepalive
	<-working
}

// Pitfall 4: a holder pauses past its TTL in the middle of its critical
// section; the next holder takes over; the first resumes and writes. With
// no token the store takes the stale write; with one it refuses it.
func TestPitfallUnfencedPause(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	tests := []struct {
		name        string
		recipe      string
		wantRefused bool
	}{
		{name: "no token", recipe: "unfenced", wantRefused: false},
		{name: "mutex token", recipe: "mutex", wantRefused: true},
		{name: "fenced token and guard", recipe: "fenced", wantRefused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			var res Resource
			var store FencedResource
			aName, bName := "a-"+tt.recipe, "b-"+tt.recipe
			cliA := clustertest.Client(t, c, aName)
			a := newLocker(t, tt.recipe, cliA, "p4-"+tt.recipe, Options{TTL: time.Second})
			b := newLocker(t, tt.recipe, clustertest.Client(t, c, bName), "p4-"+tt.recipe, Options{TTL: time.Second})

			ha := mustLock(t, ctx, a)
			exitA := res.Enter("a")
			if err := store.Write(ha.Token(), "a", "a1"); err != nil {
				t.Fatal(err)
			}
			resume := pause(t, c, aName)
			hb := mustLock(t, ctx, b) // once a's lease has expired
			exitB := res.Enter("b")
			if err := store.Write(hb.Token(), "b", "b1"); err != nil {
				t.Fatal(err)
			}
			resume()
			err := store.Write(ha.Token(), "a", "a2") // a carries on where it stopped
			if refused := errors.Is(err, ErrStaleToken); refused != tt.wantRefused {
				t.Errorf("a's write after its pause refused: %v (%v), want %v", refused, err, tt.wantRefused)
			}
			if w, ok := ha.(Writer); ok {
				if _, err := w.Put(ctx, "etcdsim/data/p4", "a2"); !errors.Is(err, ErrNotHeld) {
					t.Errorf("a's guarded put after its pause: %v, want ErrNotHeld", err)
				}
			}
			if len(res.Overlaps()) != 1 {
				t.Errorf("overlaps %+v, want a's paused section overlapping b's: the pause is real for every recipe", res.Overlaps())
			}
			var order []string
			for _, w := range store.Accepted() {
				order = append(order, w.Value)
			}
			t.Logf("store accepted %v, refused %v", order, store.Rejected())
			exitA()
			exitB()
			unlock(t, ctx, hb, nil)
			unlock(t, ctx, ha, ErrNotHeld)
		})
	}
}

// Pitfall 6: the holder crashes (it is cut off for good). A lock taken
// without a lease is never freed: its key has no lease, so nothing will
// delete it. With a lease the next client gets the lock after the TTL.
func TestPitfallSetNXNeverFreed(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	observer := clustertest.Client(t, c, "observer")
	tests := []struct {
		name      string
		recipe    string
		wantFreed bool
	}{
		{name: "put if absent", recipe: "setnx", wantFreed: false},
		{name: "leased mutex", recipe: "mutex", wantFreed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			aName := "a-" + tt.recipe
			a := newLocker(t, tt.recipe, clustertest.Client(t, c, aName), "p6-"+tt.recipe, Options{TTL: time.Second})
			b := newLocker(t, tt.recipe, clustertest.Client(t, c, "b-"+tt.recipe), "p6-"+tt.recipe, Options{TTL: time.Second})
			ha := mustLock(t, ctx, a)
			resume := pause(t, c, aName) // crashed

			// Three TTLs after the crash, plus etcd's reaping, is ample
			// for a leased lock; the wait only bounds the test.
			bctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			hb, err := b.Lock(bctx)
			cancel()
			if freed := err == nil; freed != tt.wantFreed {
				t.Fatalf("b got the crashed holder's lock: %v (%v), want %v", freed, err, tt.wantFreed)
			}
			if !tt.wantFreed {
				resp, err := observer.Get(ctx, ha.Key())
				if err != nil {
					t.Fatal(err)
				}
				if len(resp.Kvs) != 1 || resp.Kvs[0].Lease != 0 {
					t.Fatalf("the crashed holder's key: %v; want it present with no lease, so never deleted", resp.Kvs)
				}
				t.Logf("%s = %q, lease %d: held by a holder that no longer runs", ha.Key(), resp.Kvs[0].Value, resp.Kvs[0].Lease)
			}
			resume() // the holder comes back
			if tt.wantFreed {
				unlock(t, ctx, hb, nil)
				unlock(t, ctx, ha, ErrNotHeld)
			} else {
				unlock(t, ctx, ha, nil) // only it could
			}
		})
	}
}

// Pitfall 9: six waiters queue behind a holder that then crashes. Each
// acquisition wakes one waiter when each watches its predecessor, and
// every remaining waiter when each watches the whole prefix.
func TestPitfallHerd(t *testing.T) {
	const waiters = 6
	c := cluster.New(t, cluster.Config{})
	observer := clustertest.Client(t, c, "observer")
	tests := []struct {
		name   string
		recipe string
		check  func(wakes int64) bool
		want   string
	}{
		{name: "watch the predecessor", recipe: "fenced",
			check: func(w int64) bool { return w <= waiters }, want: "at most one per acquisition"},
		{name: "watch the prefix", recipe: "herd",
			check: func(w int64) bool { return w >= waiters*(waiters+1)/2 }, want: "every remaining waiter per acquisition"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			lockName := "p9-" + tt.recipe
			holderName := "holder-" + tt.recipe
			holder := newLocker(t, tt.recipe, clustertest.Client(t, c, holderName), lockName, Options{TTL: time.Second})
			hh := mustLock(t, ctx, holder)

			var res Resource
			g, gctx := errgroup.WithContext(ctx)
			ls := make([]Locker, waiters)
			for i := range ls {
				who := fmt.Sprintf("w%d-%s", i, tt.recipe)
				ls[i] = newLocker(t, tt.recipe, clustertest.Client(t, c, who), lockName, Options{TTL: 5 * time.Second})
				g.Go(func() error {
					h, err := ls[i].Lock(gctx)
					if err != nil {
						return fmt.Errorf("%s: %w", who, err)
					}
					res.Enter(who)()
					return h.Unlock(gctx)
				})
			}
			clustertest.WaitKeys(t, ctx, observer, DefaultPrefix+lockName+"/", waiters+1)
			resume := pause(t, c, holderName) // the holder crashes
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			var wakes int64
			for _, l := range ls {
				wakes += l.(WakeCounter).Wakeups()
			}
			t.Logf("%d waiters, %d watch events: %.1f per acquisition",
				waiters, wakes, float64(wakes)/waiters)
			if !tt.check(wakes) {
				t.Errorf("%d watch events for %d acquisitions, want %s", wakes, waiters, tt.want)
			}
			if o := res.Overlaps(); len(o) > 0 {
				t.Errorf("overlaps %+v: the herd is slow, not unsafe", o)
			}
			resume()
			unlock(t, ctx, hh, ErrNotHeld)
		})
	}
}
