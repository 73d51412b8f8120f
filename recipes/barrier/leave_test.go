package barrier

import (
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/lock"
)

// After a compaction past the first process's key, the second one's Leave
// still waits for the first to leave: etcd's DoubleBarrier.Leave reads the
// waiters again after every wait, so a wait its compacted watch cuts short
// costs requests, not safety. Each such wait watches from the first's mod
// revision, which is gone, and ends at once; Leave reads and watches again
// until the first leaves (on the virtual clock, 14 requests in the 500 ms
// where 4 do without the compaction). The test shows the wait still
// correct and logs the requests.
func TestLeaveAfterCompaction(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, testCluster)
		ctx := clustertest.Context(t)
		cli := clustertest.Client(t, c, "a")
		var parties []*Checked
		for _, name := range []string{"a", "b"} {
			b, err := newChecked(clustertest.Client(t, c, name), "phase", 2, lock.Options{TTL: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			parties = append(parties, b)
		}
		entered := make(chan error, 2)
		for i, b := range parties {
			go func() {
				time.Sleep(time.Duration(i) * 10 * time.Millisecond) // a is the lowest
				entered <- b.Enter(ctx)
			}()
		}
		for range parties {
			if err := <-entered; err != nil {
				t.Fatal(err)
			}
		}
		resp, err := cli.Get(ctx, "compact")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Compact(ctx, resp.Header.Revision); err != nil {
			t.Fatal(err)
		}
		before := parties[1].view.Requests()
		left := make(chan time.Time, 1)
		go func() {
			if err := parties[1].Leave(ctx); err != nil {
				t.Error(err)
			}
			left <- time.Now()
		}()
		time.Sleep(500 * time.Millisecond)
		aLeaves := time.Now()
		if err := parties[0].Leave(ctx); err != nil {
			t.Fatal(err)
		}
		if at := <-left; at.Before(aLeaves) {
			t.Errorf("b left at %v, before a began to leave at %v", at, aLeaves)
		}
		t.Logf("b's Leave sent %d requests while it waited 500 ms for a", parties[1].view.Requests()-before)
	})
}
