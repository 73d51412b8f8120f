package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/internal/patience"
)

// startCtx is a minute, stretched with the machine's load, for a
// benchmark's cluster to start in; it ends with the benchmark.
func startCtx(b *testing.B) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	b.Cleanup(cancel)
	return ctx
}

// The benchmarks here run on the real clock: they measure the wall time
// of a start, a failover and a lock round trip on loopback sockets, what a
// run on the real clock costs (bench_virtual_test.go measures the first
// two on the virtual clock, in wall and virtual time); and
// BenchmarkLinkOverhead compares a client of the members' own listeners,
// real sockets the virtual clock does not have, with one through the
// links. Their waits for a start or a new leader stretch with the
// machine's load (patience.Scale); what they measure has no deadline, so a
// long -benchtime runs to its end.

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkLifecycle measures a 3-member cluster from Start to every member
// ready with an agreed leader (start-ms), and Close (close-ms).
func BenchmarkLifecycle(b *testing.B) {
	var start, stop time.Duration
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
		t0 := time.Now()
		c, err := Start(ctx, Config{})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		start += t1.Sub(t0)
		stop += time.Since(t1)
	}
	b.ReportMetric(ms(start)/float64(b.N), "start-ms")
	b.ReportMetric(ms(stop)/float64(b.N), "close-ms")
}

// BenchmarkFailover kills the leader and measures until a write through a
// client linked to every member succeeds under the new leader.
func BenchmarkFailover(b *testing.B) {
	c, err := Start(startCtx(b), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	cli, err := c.Client("c1")
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
		if err := c.WaitHealthy(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := cli.Put(ctx, "warm", "x"); err != nil {
			b.Fatal(err)
		}
		lead, err := c.Leader(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		if err := lead.Kill(); err != nil {
			b.Fatal(err)
		}
		for {
			// Each write waits 100 ms, stretched with the machine's load: on
			// a loaded machine a fixed 100 ms may be too short for any write.
			wctx, wcancel := context.WithTimeout(ctx, patience.Scale(100*time.Millisecond))
			_, err := cli.Put(wctx, "failover", fmt.Sprint(i))
			wcancel()
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				b.Fatalf("no write succeeded after killing %s: %v", lead.Name(), err)
			}
		}
		total += time.Since(t0)
		b.StopTimer()
		if err := lead.Restart(ctx); err != nil {
			b.Fatal(err)
		}
		cancel()
		b.StartTimer()
	}
	b.ReportMetric(ms(total)/float64(b.N), "failover-ms")
}

// BenchmarkLinkOverhead compares an uncontended concurrency.Mutex
// lock+unlock through a client connected straight to the members' real
// listeners with the same through a named client's links.
func BenchmarkLinkOverhead(b *testing.B) {
	c, err := Start(startCtx(b), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var direct []string
	for _, m := range c.Members() {
		m.mu.Lock()
		direct = append(direct, "http://"+m.clientAddr)
		m.mu.Unlock()
	}
	raw, err := clientv3.New(clientv3.Config{Endpoints: direct, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	linked, err := c.Client("linked")
	if err != nil {
		b.Fatal(err)
	}
	measure := func(cli *clientv3.Client, n int) time.Duration {
		ctx := context.Background() // however long -benchtime runs
		s, err := concurrency.NewSession(cli, concurrency.WithTTL(5))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		mu := concurrency.NewMutex(s, "/bench-lock")
		t0 := time.Now()
		for range n {
			if err := mu.Lock(ctx); err != nil {
				b.Fatal(err)
			}
			if err := mu.Unlock(ctx); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0)
	}
	measure(raw, 20) // warm both paths
	measure(linked, 20)
	var tDirect, tLinked time.Duration
	n := 0
	for b.Loop() {
		// Interleave in small rounds so machine noise hits both alike.
		tDirect += measure(raw, 10)
		tLinked += measure(linked, 10)
		n += 10
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) / float64(n) }
	b.ReportMetric(us(tDirect), "direct-us/op")
	b.ReportMetric(us(tLinked), "linked-us/op")
	b.ReportMetric(float64(tLinked)/float64(tDirect), "overhead-x")
}
