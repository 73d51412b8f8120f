package register_test

import (
	"context"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/recipes/register"
)

// Every recipe reads what it wrote and what another client of the same
// recipe wrote since, and closes without leaving a goroutine behind
// (TestMain's goleak). A leasing KV's cache is invalidated by the writes
// of other leasing KVs, which revoke its lease key, so both clients write
// through the recipe, as the register workload's do.
func TestRecipesReadTheirOwnAndOthersWrites(t *testing.T) {
	for _, r := range append(register.Recipes(), register.UpstreamRecipes()...) {
		t.Run(r.Name, func(t *testing.T) {
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{Clock: cluster.ClockVirtual})
				ctx := clustertest.Context(t)
				kv, err := r.New(ctx, clustertest.Client(t, c, "c1"), time.Second)
				if err != nil {
					t.Fatal(err)
				}
				other, err := r.New(ctx, clustertest.Client(t, c, "c2"), time.Second)
				if err != nil {
					t.Fatal(err)
				}
				defer register.Close(other) //nolint:errcheck // nothing to check at the end
				if _, err := kv.Put(ctx, "k", "mine"); err != nil {
					t.Fatalf("Put: %v", err)
				}
				if got := get(t, ctx, kv); got != "mine" {
					t.Fatalf("Get after own Put = %q, want mine", got)
				}
				if _, err := other.Put(ctx, "k", "theirs"); err != nil {
					t.Fatal(err)
				}
				if got := get(t, ctx, kv); got != "theirs" {
					t.Errorf("Get after another client's Put = %q, want theirs", got)
				}
				if err := register.Close(kv); err != nil {
					t.Errorf("Close: %v", err)
				}
				if err := register.Close(kv); err != nil {
					t.Errorf("second Close: %v", err)
				}
			})
		})
	}
}

// The guarded leasing KV serves its cache only while its guard proves the
// lease alive: once another client revokes every lease, a read returns
// the value another client wrote since, and the KV starts over on a new
// lease.
func TestGuardedReadsTheClusterOnceItsLeaseIsGone(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{Clock: cluster.ClockVirtual})
		ctx := clustertest.Context(t)
		r, err := register.Lookup("leasing-guarded")
		if err != nil {
			t.Fatal(err)
		}
		kv, err := r.New(ctx, clustertest.Client(t, c, "c1"), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer register.Close(kv) //nolint:errcheck // closed twice: the test checks Close above
		other := clustertest.Client(t, c, "c2")
		if _, err := other.Put(ctx, "k", "1"); err != nil {
			t.Fatal(err)
		}
		if got := get(t, ctx, kv); got != "1" { // cached from here on
			t.Fatalf("Get = %q, want 1", got)
		}
		leases, err := other.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range leases.Leases {
			if _, err := other.Revoke(ctx, l.ID); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := other.Put(ctx, "k", "2"); err != nil {
			t.Fatal(err)
		}
		clustertest.Eventually(t, ctx, "a read of the value written after the revoke", func(ctx context.Context) error {
			if got := get(t, ctx, kv); got != "2" {
				return errors.New("read " + got)
			}
			return nil
		})
		clustertest.Eventually(t, ctx, "a write through a new leasing KV", func(ctx context.Context) error {
			_, err := kv.Put(ctx, "k", "3")
			return err
		})
	})
}

// get reads k through kv: its value, "" when it is missing.
func get(t *testing.T, ctx context.Context, kv clientv3.KV) string {
	t.Helper()
	resp, err := kv.Get(ctx, "k")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if len(resp.Kvs) == 0 {
		return ""
	}
	return string(resp.Kvs[0].Value)
}
