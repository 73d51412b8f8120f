package discovery_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// The benchmarks here run on the real clock: they measure, in wall time,
// how long a registrar and the resolvers take over loopback sockets. Each
// round's waits end after clustertest.Patience, stretched with the
// machine's load (patience.Scale), so a round that never ends fails
// instead of hanging.

// round returns the context of one round of a benchmark.
func round(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, patience.Scale(clustertest.Patience))
}

// BenchmarkReregister measures how long the correct registrar takes to
// register again after its lease is revoked.
func BenchmarkReregister(b *testing.B) {
	c := cluster.New(b, cluster.Config{})
	ctx := b.Context()
	admin := clustertest.Client(b, c, "admin")
	reg, err := discovery.NewKeepAlive(clustertest.Client(b, c, "inst"), "bench", "inst:1", discovery.Options{TTL: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	rctx, cancel := round(ctx)
	err = reg.Register(rctx)
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for b.Loop() {
		rctx, cancel := round(ctx)
		lease := waitKey(b, rctx, admin, reg.Key(), true)
		t0 := time.Now()
		if _, err := admin.Revoke(rctx, lease); err != nil {
			b.Fatal(err)
		}
		for waitKey(b, rctx, admin, reg.Key(), true) == lease {
		}
		total += time.Since(t0)
		cancel()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/reregister")
}

// BenchmarkResolverCatchUp measures, for each resolver, the time from a
// registration's return to the resolver showing it.
func BenchmarkResolverCatchUp(b *testing.B) {
	c := cluster.New(b, cluster.Config{})
	for _, rr := range discovery.Resolvers() {
		b.Run(rr.Name, func(b *testing.B) {
			ctx := b.Context()
			service := "catchup-" + rr.Name
			cli := clustertest.Client(b, c, "c-"+rr.Name)
			res := resolve(b, rr.Name, cli, service)
			var total time.Duration
			i := 0
			for b.Loop() {
				rctx, cancel := round(ctx)
				addr := fmt.Sprintf("i%d:1", i)
				i++
				reg, err := discovery.NewKeepAlive(cli, service, addr, discovery.Options{TTL: 5 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				if err := reg.Register(rctx); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				waitState(b, rctx, res, addr, func(s discovery.State) bool { return len(s.Endpoints) == 1 })
				total += time.Since(t0)
				if err := reg.Close(); err != nil {
					b.Fatal(err)
				}
				waitState(b, rctx, res, "none", func(s discovery.State) bool { return len(s.Endpoints) == 0 })
				cancel()
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/catchup")
		})
	}
}
