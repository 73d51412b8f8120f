package lock

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/internal/patience"
	"golang.org/x/sync/errgroup"
)

// Every correct recipe gives mutual exclusion under contention on a
// healthy cluster: 5 clients × 50 acquisitions (10 with -short or -race), each a
// critical section on a Resource that counts overlaps and a write to a
// FencedResource, whose accepted tokens must strictly increase.
func TestMutualExclusion(t *testing.T) {
	const clients = 5
	// Under -race, as in -short, ten rounds: 250 acquisitions a recipe
	// on a CPU-bound virtual cluster are minutes under the detector, which
	// sees the same code in ten; make test runs all fifty once more
	// without it (the Makefile's SAMPLED_TESTS).
	rounds := 50
	if testing.Short() || patience.RaceEnabled {
		rounds = 10
	}
	for _, r := range Recipes() {
		if r.Broken {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				var res Resource
				var store FencedResource
				lockers := make([]Locker, clients)
				for i := range lockers {
					cli := clustertest.Client(t, c, fmt.Sprintf("%s-%d", r.Name, i))
					lockers[i] = newLocker(t, r.Name, cli, "exclusion-"+r.Name, Options{TTL: 5 * time.Second})
				}
				start := time.Now()
				g, ctx := errgroup.WithContext(clustertest.Context(t))
				for i, l := range lockers {
					who := fmt.Sprintf("c%d", i)
					g.Go(func() error { return contend(ctx, l, who, rounds, &res, &store) })
				}
				if err := g.Wait(); err != nil {
					t.Fatal(err)
				}
				elapsed := time.Since(start)

				if got, want := res.Sections(), clients*rounds; got != want {
					t.Errorf("%d critical sections, want %d", got, want)
				}
				if o := res.Overlaps(); len(o) > 0 {
					t.Errorf("%d overlapping critical sections, first %+v", len(o), o[0])
				}
				if rej := store.Rejected(); len(rej) > 0 {
					t.Errorf("%d writes refused as stale, first %+v", len(rej), rej[0])
				}
				acc := store.Accepted()
				for i := 1; i < len(acc); i++ {
					if acc[i].Token <= acc[i-1].Token {
						t.Errorf("token did not increase: write %d %+v after %+v", i, acc[i], acc[i-1])
						break
					}
				}
				var wakes int64
				for _, l := range lockers {
					if wc, ok := l.(WakeCounter); ok {
						wakes += wc.Wakeups()
					}
				}
				t.Logf("%d acquisitions in %v (%.1f/s); %d watch wakeups",
					clients*rounds, elapsed.Round(time.Millisecond), float64(clients*rounds)/elapsed.Seconds(), wakes)
			})
		})
	}
}

// contend locks l rounds times; in each critical section it enters res,
// writes to store with its token and, if the holder can, to etcd through
// the guard.
func contend(ctx context.Context, l Locker, who string, rounds int, res *Resource, store *FencedResource) error {
	for i := range rounds {
		h, err := l.Lock(ctx)
		if err != nil {
			return fmt.Errorf("%s: round %d: %w", who, i, err)
		}
		exit := res.Enter(who)
		werr := store.Write(h.Token(), who, fmt.Sprint(i))
		if w, ok := h.(Writer); ok && werr == nil {
			_, werr = w.Put(ctx, "etcdsim/data/exclusion", who)
		}
		exit()
		if err := h.Unlock(ctx); err != nil {
			return fmt.Errorf("%s: round %d: %w", who, i, err)
		}
		if werr != nil {
			return fmt.Errorf("%s: round %d: %w", who, i, werr)
		}
	}
	return nil
}

// The correct recipes keep mutual exclusion while the leader is killed
// and restarted mid-run. Locks and releases that fail because of the
// crash are retried; a release that finds the lock lost is counted, and
// with a 5 s TTL there should be none.
func TestMutualExclusionThroughLeaderKill(t *testing.T) {
	const clients = 3
	rounds := 15
	if testing.Short() {
		rounds = 8
	}
	for _, r := range Recipes() {
		if r.Broken {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				ctx := clustertest.Context(t)
				var res Resource
				var store FencedResource
				progress := make(chan struct{}, clients*rounds)
				g, gctx := errgroup.WithContext(ctx)
				for i := range clients {
					who := fmt.Sprintf("c%d", i)
					cli := clustertest.Client(t, c, fmt.Sprintf("kill-%s-%d", r.Name, i))
					l := newLocker(t, r.Name, cli, "kill-"+r.Name, Options{TTL: 5 * time.Second})
					g.Go(func() error { return contendRetrying(gctx, t, l, who, rounds, &res, &store, progress) })
				}
				g.Go(func() error { // the fault: kill the leader after some progress, restart it after more
					for range 2 * clients {
						<-progress
					}
					lead, err := c.Leader(gctx)
					if err != nil {
						return err
					}
					if err := lead.Kill(); err != nil {
						return err
					}
					t.Logf("killed leader %s", lead.Name())
					for range 2 * clients {
						<-progress
					}
					return lead.Restart(gctx)
				})
				if err := g.Wait(); err != nil {
					t.Fatal(err)
				}
				if o := res.Overlaps(); len(o) > 0 {
					t.Errorf("%d overlapping critical sections, first %+v", len(o), o[0])
				}
				if rej := store.Rejected(); len(rej) > 0 {
					t.Errorf("%d writes refused as stale, first %+v", len(rej), rej[0])
				}
			})
		})
	}
}

// contendRetrying is contend for a cluster under faults: it retries a
// Lock or an Unlock that failed for a reason other than ctx, and reports
// each completed round on progress.
func contendRetrying(ctx context.Context, t *testing.T, l Locker, who string, rounds int, res *Resource, store *FencedResource, progress chan<- struct{}) error {
	for i := 0; i < rounds; {
		h, err := l.Lock(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s: round %d: %w", who, i, err)
			}
			t.Logf("%s: round %d: Lock failed, retrying: %v", who, i, err)
			time.Sleep(10 * time.Millisecond) // a failing Lock may fail at once: let time move
			continue
		}
		exit := res.Enter(who)
		werr := store.Write(h.Token(), who, fmt.Sprint(i))
		exit()
		if err := h.Unlock(ctx); err != nil {
			return fmt.Errorf("%s: round %d: %w", who, i, err)
		}
		if werr != nil {
			return fmt.Errorf("%s: round %d: %w", who, i, werr)
		}
		progress <- struct{}{}
		i++
	}
	return nil
}
