package lock

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/patience"
	"golang.org/x/sync/errgroup"
)

// BenchmarkLockUnlock measures acquisitions per second of each recipe,
// alone and with 5 and 20 clients contending, on a healthy 3-member
// cluster, and for the recipes that count them the watch events per
// acquisition:
//
//	go test -run '^$' -bench LockUnlock ./lock/
//
// It runs on the real clock: what it measures is wall time.
func BenchmarkLockUnlock(b *testing.B) {
	c := cluster.New(b, cluster.Config{})
	for _, r := range Recipes() {
		for _, clients := range []int{1, 5, 20} {
			b.Run(fmt.Sprintf("%s/clients=%d", r.Name, clients), func(b *testing.B) {
				ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(5*time.Minute))
				defer cancel()
				lockName := fmt.Sprintf("bench-%s-%d", r.Name, clients)
				lockers := make([]Locker, clients)
				for i := range lockers {
					cli, err := c.Client(fmt.Sprintf("bench-%d", i))
					if err != nil {
						b.Fatal(err)
					}
					if lockers[i], err = r.New(cli, lockName, Options{TTL: 5 * time.Second}); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				start := time.Now()
				// A broken recipe's errors under contention are its pitfall
				// showing (delete-name frees waiters' keys): count them. A
				// correct recipe's error fails the benchmark.
				var failures atomic.Int64
				tolerate := func(err error) error {
					if r.Broken {
						failures.Add(1)
						return nil
					}
					return err
				}
				g, gctx := errgroup.WithContext(ctx)
				for i, l := range lockers {
					n := b.N / clients
					if i < b.N%clients {
						n++
					}
					g.Go(func() error {
						for range n {
							h, err := l.Lock(gctx)
							if err != nil {
								if err := tolerate(err); err != nil {
									return err
								}
								continue
							}
							if err := h.Unlock(gctx); err != nil {
								if err := tolerate(err); err != nil {
									return err
								}
							}
						}
						return nil
					})
				}
				if err := g.Wait(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "acq/s")
				var wakes int64
				for _, l := range lockers {
					if wc, ok := l.(WakeCounter); ok {
						wakes += wc.Wakeups()
					}
				}
				b.ReportMetric(float64(wakes)/float64(b.N), "wakeups/acq")
				if r.Broken {
					b.ReportMetric(float64(failures.Load())/float64(b.N), "errors/acq")
				}
			})
		}
	}
}
