package scenarios_test

import (
	"context"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.etcd.io/etcd/client/v3/leasing"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/bubble"
	"github.com/etcdsim/etcdsim/scenarios"
)

// On etcd v3.7.3 the leasing KV sends a transaction that writes a key
// again and again, until its context ends, when the key's lease key is
// held under the client's own lease but its cache has forgotten the key:
// here, a second leasing KV on the same lease, as the leasing KV's own
// session restart makes. Each round is a raft entry. With the latency
// register/leasing-guarded/standard-mix runs on, the rounds take virtual
// time and the deadline ends them; with none, the clock would stand still.
func TestLeasingTxnSpinsOnOwnLeaseKey(t *testing.T) {
	s, err := scenarios.Lookup("register/leasing-guarded/standard-mix")
	if err != nil {
		t.Fatal(err)
	}
	if s.Cluster.Latency == 0 {
		t.Fatal("register/leasing-guarded/standard-mix runs with no latency: the loop below would stop its virtual clock")
	}
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		ctx := context.Background()
		c := cluster.New(t, cluster.Config{Latency: s.Cluster.Latency.D()})
		cli, err := c.Client("c1")
		if err != nil {
			t.Fatal(err)
		}
		grant, err := cli.Grant(ctx, 60)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Put(ctx, "k", "v0"); err != nil {
			t.Fatal(err)
		}
		first, closeFirst, err := leasing.NewKV(cli, "leasing/", concurrency.WithLease(grant.ID))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := first.Get(ctx, "k"); err != nil { // takes leasing/k under the lease
			t.Fatal(err)
		}
		closeFirst()
		second, closeSecond, err := leasing.NewKV(cli, "leasing/", concurrency.WithLease(grant.ID))
		if err != nil {
			t.Fatal(err)
		}
		defer closeSecond()

		leader, err := c.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		before := leader.Server().AppliedIndex()
		const patience = 500 * time.Millisecond
		start := time.Now()
		wctx, cancel := context.WithTimeout(ctx, patience)
		_, err = second.Txn(wctx).Then(clientv3.OpPut("k", "v1")).Commit()
		cancel()
		took, rounds := time.Since(start), leader.Server().AppliedIndex()-before
		t.Logf("the write failed after %v of virtual time and %d raft entries: %v", took, rounds, err)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the write returned %v; want context.DeadlineExceeded (etcd v3.7.3 retries it until then)", err)
		}
		if rounds < 20 {
			t.Errorf("the write took %d raft entries; want many (one per round of the loop) — has the leasing KV stopped retrying?", rounds)
		}
	})
}
