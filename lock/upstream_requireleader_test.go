package lock

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// etcd PR #21126 on one holder: the member its lease stream is on loses
// its leader, and clientv3 closes the WithRequireLeader keep-alive
// channel. Upstream's pattern leaves clientv3 renewing the lease, so the
// key is still there three TTLs later; with the keep-alive's context
// cancelled when the channel closes, the lease expires and takes the key.
func TestRequireLeaderKeepAlive(t *testing.T) {
	for _, tt := range []struct {
		recipe string
		kept   bool // the holder's key outlives its closed channel
	}{
		{recipe: "requireleader-keepalive", kept: true},
		{recipe: "requireleader-cancel", kept: false},
	} {
		t.Run(tt.recipe, func(t *testing.T) {
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{Latency: time.Millisecond})
				ctx := clustertest.Context(t)
				cli := clustertest.Client(t, c, "c1")
				r, err := Lookup(tt.recipe)
				if err != nil {
					t.Fatal(err)
				}
				l, err := r.New(cli, "L", Options{TTL: 2 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				h, err := l.Lock(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var on string
				clustertest.Eventually(t, ctx, "c1 has a lease stream", func(context.Context) error {
					on, err = c.PinnedMember("c1")
					return err
				})
				var rest []string
				for _, m := range c.Members() {
					if m.Name() != on {
						rest = append(rest, m.Name())
					}
				}
				if err := c.Partition([]string{on}, rest); err != nil {
					t.Fatal(err)
				}
				select {
				case <-h.Done():
				case <-time.After(10 * time.Second):
					t.Fatalf("the keep-alive channel did not close within 10s of %s losing its peers", on)
				}
				if err := c.HealAll(); err != nil {
					t.Fatal(err)
				}
				if err := h.Unlock(ctx); err == nil {
					t.Error("Unlock after the channel closed returned nil; want ErrNotHeld: the holder takes its lease for gone")
				}
				time.Sleep(6 * time.Second) // three TTLs
				resp, err := cli.Get(ctx, h.Key())
				if err != nil {
					t.Fatal(err)
				}
				if kept := len(resp.Kvs) == 1; kept != tt.kept {
					t.Errorf("key %s still there 6s after the channel closed: %v, want %v", h.Key(), kept, tt.kept)
				}
				leases, err := cli.Leases(ctx)
				if err != nil {
					t.Fatal(err)
				}
				alive := slices.ContainsFunc(leases.Leases, func(s clientv3.LeaseStatus) bool { return int64(s.ID) == int64(h.(Leaser).Lease()) })
				if alive != tt.kept {
					t.Errorf("lease still alive: %v, want %v", alive, tt.kept)
				}
			})
		})
	}
}
