package lock

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
)

// settle is how long a second Lock is given to return while the lock is
// held. A broken recipe returns in milliseconds; a correct one is still
// waiting when settle ends, and must then get the lock once it is freed.
const settle = 2 * time.Second

// overlapped reports whether two holders were ever inside res at once,
// and logs who entered while whom was inside (read them with -v).
func overlapped(t *testing.T, recipe string, res *Resource) bool {
	t.Helper()
	for _, o := range res.Overlaps() {
		t.Logf("%s: %s entered the guarded section while %v was inside", recipe, o.Entrant, o.Inside)
	}
	return len(res.Overlaps()) > 0
}

// lockWhileHeld calls l.Lock while first holds the lock (in res as
// firstExit). If Lock returns within settle, that is two holders: both
// stay in res. Otherwise first leaves res and unlocks, and Lock must then
// return. Either way the second holder is entered in res as who.
func lockWhileHeld(t *testing.T, ctx context.Context, res *Resource, l Locker, who string, first Held, firstExit func()) (Held, func()) {
	t.Helper()
	ch := lockAsync(ctx, l)
	timer := time.NewTimer(settle)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("%s: Lock while held: %v", who, r.err)
		}
		return r.h, res.Enter(who)
	case <-timer.C:
	}
	firstExit()
	unlock(t, ctx, first, nil)
	r := <-ch
	if r.err != nil {
		t.Fatalf("%s: Lock after the holder released: %v", who, r.err)
	}
	return r.h, res.Enter(who)
}

// twoHolderCase runs one scenario with a broken recipe, which must give
// two holders, and with a correct one, which must not.
type twoHolderCase struct {
	name           string
	recipe         string
	wantTwoHolders bool
}

// Pitfall 1: a client that re-locks keeps its old key and create revision
// and jumps ahead of the holder that came in between.
func TestPitfallReleasedMarker(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	observer := clustertest.Client(t, c, "observer")
	tests := []twoHolderCase{
		{name: "release marks the key", recipe: "released-marker", wantTwoHolders: true},
		{name: "release deletes the key", recipe: "mutex", wantTwoHolders: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			var res Resource
			lockName := "p1-" + tt.recipe
			a := newLocker(t, tt.recipe, clustertest.Client(t, c, "a-"+tt.recipe), lockName, Options{TTL: 5 * time.Second})
			b := newLocker(t, tt.recipe, clustertest.Client(t, c, "b-"+tt.recipe), lockName, Options{TTL: 5 * time.Second})

			ha := mustLock(t, ctx, a)
			exitA := res.Enter("a")
			bch := lockAsync(ctx, b)
			clustertest.WaitKeys(t, ctx, observer, DefaultPrefix+lockName+"/", 2)
			exitA()
			unlock(t, ctx, ha, nil)
			rb := <-bch
			if rb.err != nil {
				t.Fatalf("b: %v", rb.err)
			}
			hb, exitB := rb.h, res.Enter("b")

			ha2, exitA2 := lockWhileHeld(t, ctx, &res, a, "a", hb, exitB)
			twoHolders := overlapped(t, tt.recipe, &res)
			if twoHolders != tt.wantTwoHolders {
				t.Errorf("a locked again while b held the lock: %v, want %v (overlaps %+v)", twoHolders, tt.wantTwoHolders, res.Overlaps())
			}
			if backwards := ha2.Token() < hb.Token(); backwards != tt.wantTwoHolders {
				t.Errorf("a's new token %d is below b's %d: %v, want %v", ha2.Token(), hb.Token(), backwards, tt.wantTwoHolders)
			}
			exitA2()
			exitB()
			unlock(t, ctx, ha2, nil)
			if twoHolders {
				unlock(t, ctx, hb, nil)
			}
		})
	}
}

// Pitfall 5: two goroutines locking through one session both hold the
// lock, on the same key; the first Unlock deletes it under the other.
func TestPitfallSharedSession(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	tests := []twoHolderCase{
		{name: "one session for both", recipe: "shared-session", wantTwoHolders: true},
		{name: "a session per holder", recipe: "mutex", wantTwoHolders: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			var res Resource
			l := newLocker(t, tt.recipe, clustertest.Client(t, c, "c-"+tt.recipe), "p5-"+tt.recipe, Options{TTL: 5 * time.Second})

			h1 := mustLock(t, ctx, l)
			exit1 := res.Enter("goroutine 1")
			h2, exit2 := lockWhileHeld(t, ctx, &res, l, "goroutine 2", h1, exit1)
			twoHolders := overlapped(t, tt.recipe, &res)
			if twoHolders != tt.wantTwoHolders {
				t.Fatalf("both goroutines hold the lock: %v, want %v", twoHolders, tt.wantTwoHolders)
			}
			if twoHolders {
				if h1.Key() != h2.Key() {
					t.Errorf("two holders on different keys %s and %s: not the shared-session failure", h1.Key(), h2.Key())
				}
				exit1()
				unlock(t, ctx, h1, nil)
				owned, err := h2.(Checker).Owned(ctx)
				if err != nil || owned {
					t.Errorf("after goroutine 1 unlocked, goroutine 2 still owns the key: %v, %v; want false: its key was deleted under it", owned, err)
				}
			}
			exit2()
			unlock(t, ctx, h2, nil)
		})
	}
}

// Pitfall 7: a waiter that gives up cleans up by deleting the lock's name,
// which deletes the holder's key too; the next client walks in while the
// holder, whose lease is fine, goes on.
func TestPitfallDeleteName(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	observer := clustertest.Client(t, c, "observer")
	tests := []twoHolderCase{
		{name: "clean-up deletes the name", recipe: "delete-name", wantTwoHolders: true},
		{name: "clean-up deletes its own key", recipe: "mutex", wantTwoHolders: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			var res Resource
			lockName := "p7-" + tt.recipe
			newL := func(who string) Locker {
				return newLocker(t, tt.recipe, clustertest.Client(t, c, who+"-"+tt.recipe), lockName, Options{TTL: 5 * time.Second})
			}
			a, b, cl := newL("a"), newL("b"), newL("c")

			ha := mustLock(t, ctx, a)
			exitA := res.Enter("a")
			bctx, giveUp := context.WithCancel(ctx)
			bch := lockAsync(bctx, b)
			clustertest.WaitKeys(t, ctx, observer, DefaultPrefix+lockName+"/", 2)
			giveUp()
			if rb := <-bch; !errors.Is(rb.err, context.Canceled) {
				t.Fatalf("b gave up waiting: got %v, want context.Canceled", rb.err)
			}

			hc, exitC := lockWhileHeld(t, ctx, &res, cl, "c", ha, exitA)
			twoHolders := overlapped(t, tt.recipe, &res)
			if twoHolders != tt.wantTwoHolders {
				t.Fatalf("c locked while a held the lock: %v, want %v", twoHolders, tt.wantTwoHolders)
			}
			if twoHolders {
				owned, err := ha.(Checker).Owned(ctx)
				if err != nil || owned || clustertest.Closed(ha.Done()) {
					t.Errorf("a: owned %v (%v), Done open %v; want a's key deleted by b while a's lease lives on", owned, err, !clustertest.Closed(ha.Done()))
				}
				exitA()
				unlock(t, ctx, ha, nil) // deletes c's key in turn
			}
			exitC()
			unlock(t, ctx, hc, nil) // delete-name: deletes nothing left, and says nothing
		})
	}
}
