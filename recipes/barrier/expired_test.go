package barrier

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/lock"
)

// A process waits in Enter through a member that a partition cuts off; the
// last process arrives and opens the barrier; the waiter's lease expires
// while its watch is stalled; the partition heals, its watch delivers the
// ready key's put, and the ready key is still there. Its waiter key is gone,
// so the others no longer count it: Enter must fail, not return nil and
// let the process believe itself inside a barrier the others may leave at
// once. TestExpiredEnterFlagged reads a run where this happened.
func TestEnterAfterLeaseExpired(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, testCluster)
		ctx := clustertest.Context(t)
		leader, err := c.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var cut string
		var rest []string
		for _, m := range c.Members() {
			if cut == "" && m != leader {
				cut = m.Name()
			} else {
				rest = append(rest, m.Name())
			}
		}
		ttl := 2 * time.Second
		a, err := newChecked(clustertest.Client(t, c, "a", cut), "phase", 2, lock.Options{TTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		b, err := newChecked(clustertest.Client(t, c, "b", rest...), "phase", 2, lock.Options{TTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		entered := make(chan error, 1)
		go func() { entered <- a.Enter(ctx) }()
		time.Sleep(200 * time.Millisecond) // a's key is put; it waits for ready through cut
		if err := c.Partition([]string{cut}, rest); err != nil {
			t.Fatal(err)
		}
		if err := b.Enter(ctx); err != nil {
			t.Fatalf("b: Enter with a's key there: %v", err)
		}
		time.Sleep(ttl + 2*time.Second) // a's lease expires on the leader
		if err := c.HealAll(); err != nil {
			t.Fatal(err)
		}
		err = <-entered
		if err == nil {
			t.Fatal("a's Enter returned nil after its lease had expired and its waiter key was gone")
		}
		if !errors.Is(err, ErrLeaseLost) {
			t.Errorf("a's Enter: %v, want ErrLeaseLost", err)
		}
		t.Logf("a's Enter: %v", err)
	})
}

// testdata/expired-enter-history.json is the history of a run of
// barrier/checked/standard-mix (seed 1, virtual clock, 16 cores) before
// Checked renewed its lease and read its own key after Enter's wait. In
// round 10, c3's Enter waited through the member a minority partition cut
// off from 2.0 s to 3.2 s; its lease expired meanwhile and its waiter key
// went, so c4's Leave found c3 gone and returned at 3.234 s; c3's watch
// resumed at the heal, saw the ready key, still there, and Enter returned
// nil at 3.218 s. c3 believed itself inside while c4 left: the checker is
// right to flag it, and must go on flagging it.
func TestExpiredEnterFlagged(t *testing.T) {
	f, err := os.Open("testdata/expired-enter-history.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := checker.ReadHistory(f)
	if err != nil {
		t.Fatal(err)
	}
	res := checker.BarrierSafety(h, checker.BarrierOptions{})
	want := "c4 passed Leave of barrier B at 3.234s while c3, inside since 3.218s, had not called Leave"
	if res.Verdict != checker.VerdictViolation || len(res.Violations) != 1 || !strings.Contains(res.Violations[0].Message, want) {
		t.Fatalf("verdict %v, violations %+v; want one early pass: %s", res.Verdict, res.Violations, want)
	}
}
