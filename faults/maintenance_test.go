package faults_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Compaction to the current revision: a watch from an older revision gets
// ErrCompacted, naming the revision compacted to.
func TestCompact(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3)
		obs := clustertest.Observer(t, c.Members()...)
		first, err := obs.Put(ctx, "k", "v0")
		if err != nil {
			t.Fatal(err)
		}
		var last *clientv3.PutResponse
		for i := 1; i <= 5; i++ {
			if last, err = obs.Put(ctx, "k", fmt.Sprint("v", i)); err != nil {
				t.Fatal(err)
			}
		}
		inject(ctx, t, env, faults.Compact())
		ev := lastEvent(t, env)
		checkEvent(t, ev, "compact", nil)
		if !strings.Contains(ev.Detail, "compacted to revision") {
			t.Errorf("event detail %q; want the revision compacted to", ev.Detail)
		}

		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		resp, ok := <-obs.Watch(wctx, "k", clientv3.WithRev(first.Header.Revision))
		if !ok {
			t.Fatal("the watch closed without a response")
		}
		if resp.Err() != rpctypes.ErrCompacted {
			t.Fatalf("a watch from revision %d got %v; want ErrCompacted", first.Header.Revision, resp.Err())
		}
		if resp.CompactRevision < last.Header.Revision {
			t.Errorf("compacted to %d; want at least the revision of the last write, %d", resp.CompactRevision, last.Header.Revision)
		}
	})
}

// Defragmentation gives back the space that deleted and compacted data
// left in every member's backend.
func TestDefrag(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3)
		obs := clustertest.Observer(t, c.Members()...)
		value := strings.Repeat("x", 16<<10)
		for i := range 200 {
			if _, err := obs.Put(ctx, fmt.Sprintf("big/%03d", i), value); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := obs.Delete(ctx, "big/", clientv3.WithPrefix()); err != nil {
			t.Fatal(err)
		}
		inject(ctx, t, env, faults.Compact())
		waitApplied(ctx, t, obs, c.Members())
		before := dbSizes(ctx, t, obs, c.Members())
		inject(ctx, t, env, faults.Defrag(faults.AllMembers))
		after := dbSizes(ctx, t, obs, c.Members())
		for name, b := range before {
			if after[name] >= b {
				t.Errorf("member %s's backend is %d bytes after the defrag, %d before; want smaller", name, after[name], b)
			}
		}
		ev := lastEvent(t, env)
		checkEvent(t, ev, "defrag(all-members)", []string{"m0", "m1", "m2"})
		t.Log(describe(ev))
	})
}

// waitApplied waits until every member has applied every entry committed
// when it is called. A follower that lags would otherwise measure its
// backend before the writes and the compaction reach it, and grow under
// the defrag.
func waitApplied(ctx context.Context, t *testing.T, cli *clientv3.Client, members []*cluster.Member) {
	t.Helper()
	var commit uint64
	for _, m := range members {
		st, err := cli.Status(ctx, m.Endpoint())
		if err != nil {
			t.Fatal(err)
		}
		commit = max(commit, st.RaftIndex)
	}
	for _, m := range members {
		for {
			st, err := cli.Status(ctx, m.Endpoint())
			if err != nil {
				t.Fatal(err)
			}
			if st.RaftAppliedIndex >= commit {
				break
			}
			time.Sleep(10 * time.Millisecond) // virtual time
		}
	}
}

func dbSizes(ctx context.Context, t *testing.T, cli *clientv3.Client, members []*cluster.Member) map[string]int64 {
	t.Helper()
	sizes := make(map[string]int64)
	for _, m := range members {
		st, err := cli.Status(ctx, m.Endpoint())
		if err != nil {
			t.Fatal(err)
		}
		sizes[m.Name()] = st.DbSize
	}
	return sizes
}
