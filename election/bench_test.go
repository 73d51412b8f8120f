package election_test

import (
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/election"
)

// BenchmarkHandover measures, for each correct recipe, the time from a
// leader's Resign to the return of the waiting candidate's Campaign.
// It runs on the real clock: what it measures is wall time.
func BenchmarkHandover(b *testing.B) {
	c := cluster.New(b, cluster.Config{})
	for _, r := range election.Recipes() {
		if r.Broken {
			continue
		}
		b.Run(r.Name, func(b *testing.B) {
			ctx := b.Context()
			opts := election.Options{TTL: 5 * time.Second}
			e1, err := r.New(clustertest.Client(b, c, "h1-"+r.Name), "/handover/"+r.Name, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer e1.Close()
			e2, err := r.New(clustertest.Client(b, c, "h2-"+r.Name), "/handover/"+r.Name, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer e2.Close()
			l, err := e1.Campaign(ctx, "1")
			if err != nil {
				b.Fatal(err)
			}
			next := e2
			var total time.Duration
			for b.Loop() {
				ch := campaign(ctx, next, "n")
				clustertest.WaitKeys(b, ctx, clustertest.Client(b, c, "h1-"+r.Name), "/handover/"+r.Name+"/", 2)
				t0 := time.Now()
				if err := l.Resign(ctx); err != nil {
					b.Fatal(err)
				}
				w := <-ch
				if w.err != nil {
					b.Fatal(w.err)
				}
				total += time.Since(t0)
				l = w.l
				if next == e2 {
					next = e1
				} else {
					next = e2
				}
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/handover")
		})
	}
}
