package lock

import (
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"golang.org/x/sync/errgroup"
)

// Six waiters queue behind a holder that then crashes. Each acquisition
// wakes one waiter when each watches its predecessor, and every remaining
// waiter when each watches the whole prefix: the herd is slow, not unsafe.
func TestHerdWakesEveryWaiter(t *testing.T) {
	const waiters = 6
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
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				observer := clustertest.Client(t, c, "observer")
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
		})
	}
}
