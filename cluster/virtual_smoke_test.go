package cluster_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
)

func TestVirtualSmoke(t *testing.T) {
	wall := time.Now()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		t0 := time.Now()
		c, err := cluster.Start(ctx, cluster.Config{Clock: cluster.ClockVirtual})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		t.Logf("started in %v virtual", time.Since(t0))
		cli, err := c.Client("c1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Put(ctx, "k", "v"); err != nil {
			t.Fatal(err)
		}
		lead, err := c.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := lead.Kill(); err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		for {
			if _, err := cli.Put(ctx, "k", "v2"); err == nil {
				break
			} else {
				t.Logf("put: %v at %v", err, time.Since(t1))
			}
		}
		t.Logf("put after leader kill in %v virtual", time.Since(t1))
		if err := lead.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		lease, err := cli.Grant(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(4 * time.Second)
		ttl, err := cli.TimeToLive(ctx, lease.ID)
		if err != nil || ttl.TTL != -1 {
			t.Fatalf("lease after 4s: %v %v", ttl, err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("wall %v", time.Since(wall))
}
