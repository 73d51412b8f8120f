package discovery_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/discovery"
)

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
	if err := reg.Register(ctx); err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for b.Loop() {
		lease := waitKey(b, ctx, admin, reg.Key(), true)
		t0 := time.Now()
		if _, err := admin.Revoke(ctx, lease); err != nil {
			b.Fatal(err)
		}
		for waitKey(b, ctx, admin, reg.Key(), true) == lease {
		}
		total += time.Since(t0)
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
				addr := fmt.Sprintf("i%d:1", i)
				i++
				reg, err := discovery.NewKeepAlive(cli, service, addr, discovery.Options{TTL: 5 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				if err := reg.Register(ctx); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				waitState(b, ctx, res, addr, func(s discovery.State) bool { return len(s.Endpoints) == 1 })
				total += time.Since(t0)
				if err := reg.Close(); err != nil {
					b.Fatal(err)
				}
				waitState(b, ctx, res, "none", func(s discovery.State) bool { return len(s.Endpoints) == 0 })
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/catchup")
		})
	}
}
