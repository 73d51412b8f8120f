package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// warmVirtual starts a 3-member cluster on the virtual clock and returns
// it with client c1, which has written once, so that what a benchmark
// measures next pays for no first dial or election.
func warmVirtual(ctx context.Context) (*Cluster, *clientv3.Client, error) {
	c, err := Start(ctx, Config{Clock: ClockVirtual})
	if err != nil {
		return nil, nil, err
	}
	cli, err := c.Client("c1")
	if err == nil {
		_, err = cli.Put(ctx, "warm", "x")
	}
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, cli, nil
}

// inBubbles runs the benchmark body in bubbles: body runs in a bubble of
// its own for each of b.N iterations and returns the wall and virtual
// durations it measured for each metric.
func inBubbles(b *testing.B, body func(ctx context.Context) (wall, virtual map[string]time.Duration, err error)) {
	b.Helper()
	wall, virtual := map[string]time.Duration{}, map[string]time.Duration{}
	var runErr error
	if err := bubble.Hosting(func() {
		for range b.N {
			runErr = bubble.Run(bubble.Options{Name: b.Name()}, func() error {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				w, v, err := body(ctx)
				for k, d := range w {
					wall[k] += d
				}
				for k, d := range v {
					virtual[k] += d
				}
				return err
			})
			if runErr != nil {
				return
			}
		}
	}); err != nil {
		b.Fatal(err)
	}
	if runErr != nil {
		b.Fatal(runErr)
	}
	for k, d := range wall {
		b.ReportMetric(ms(d)/float64(b.N), k+"-wall-ms")
	}
	for k, d := range virtual {
		b.ReportMetric(ms(d)/float64(b.N), k+"-virtual-ms")
	}
}

// phase times f on both clocks: in a bubble, time.Now is virtual and
// bubble.WallNow is the wall clock.
func phase(wall, virtual map[string]time.Duration, name string, f func() error) error {
	w0, v0 := bubble.WallNow(), time.Now()
	err := f()
	wall[name] += bubble.WallNow().Sub(w0)
	virtual[name] += time.Since(v0)
	return err
}

// BenchmarkLifecycleVirtual is BenchmarkLifecycle on the virtual clock:
// Start of 3 members to an agreed leader, and Close, in wall and virtual
// milliseconds.
func BenchmarkLifecycleVirtual(b *testing.B) {
	inBubbles(b, func(ctx context.Context) (map[string]time.Duration, map[string]time.Duration, error) {
		wall, virtual := map[string]time.Duration{}, map[string]time.Duration{}
		var c *Cluster
		if err := phase(wall, virtual, "start", func() (err error) {
			c, err = Start(ctx, Config{Clock: ClockVirtual})
			return err
		}); err != nil {
			return nil, nil, err
		}
		err := phase(wall, virtual, "close", c.Close)
		return wall, virtual, err
	})
}

// BenchmarkFailoverVirtual is BenchmarkFailover on the virtual clock: the
// leader killed, until a write succeeds under the new one.
func BenchmarkFailoverVirtual(b *testing.B) {
	inBubbles(b, func(ctx context.Context) (map[string]time.Duration, map[string]time.Duration, error) {
		wall, virtual := map[string]time.Duration{}, map[string]time.Duration{}
		c, cli, err := warmVirtual(ctx)
		if err != nil {
			return nil, nil, err
		}
		defer c.Close()
		lead, err := c.Leader(ctx)
		if err != nil {
			return nil, nil, err
		}
		err = phase(wall, virtual, "failover", func() error {
			if err := lead.Kill(); err != nil {
				return err
			}
			for {
				wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
				_, err := cli.Put(wctx, "failover", "x")
				cancel()
				if err == nil {
					return nil
				}
				if ctx.Err() != nil {
					return fmt.Errorf("no write succeeded after killing %s: %w", lead.Name(), err)
				}
			}
		})
		return wall, virtual, err
	})
}

// BenchmarkFreezeVirtual freezes the leader of a 3-member cluster for 8s
// and thaws it, until the cluster is healthy again: the virtual time it
// spans against the wall time it costs (its CPU only).
func BenchmarkFreezeVirtual(b *testing.B) {
	inBubbles(b, func(ctx context.Context) (map[string]time.Duration, map[string]time.Duration, error) {
		wall, virtual := map[string]time.Duration{}, map[string]time.Duration{}
		c, err := Start(ctx, Config{Clock: ClockVirtual, Latency: time.Millisecond})
		if err != nil {
			return nil, nil, err
		}
		defer c.Close()
		lead, err := c.Leader(ctx)
		if err != nil {
			return nil, nil, err
		}
		err = phase(wall, virtual, "freeze-8s", func() error {
			if err := lead.Freeze(); err != nil {
				return err
			}
			time.Sleep(8 * time.Second)
			if _, err := lead.Thaw(); err != nil {
				return err
			}
			return c.WaitHealthy(ctx)
		})
		return wall, virtual, err
	})
}
