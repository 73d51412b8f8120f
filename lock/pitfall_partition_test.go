package lock

import (
	"context"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
)

// Pitfall 8: the holder's client talks to one follower, which is then cut
// off from the other members. The holder's lease expires on the majority
// side and b, a client of the majority, takes the lock. Asked "do I still
// own it?", a serializable read on the cut-off follower says yes; a
// linearizable read cannot answer there at all.
func TestPitfallSerializableCheck(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	ctx := clustertest.Context(t)
	lead, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var follower *cluster.Member
	var majority []string
	for _, m := range c.Members() {
		if m != lead && follower == nil {
			follower = m
			continue
		}
		majority = append(majority, m.Name())
	}
	a := newLocker(t, "serializable-check", clustertest.Client(t, c, "a", follower.Name()), "p8", Options{TTL: time.Second})
	b := newLocker(t, "mutex", clustertest.Client(t, c, "b", majority...), "p8", Options{TTL: time.Second})

	ha := mustLock(t, ctx, a)
	if owned, err := ha.(Checker).Owned(ctx); err != nil || !owned {
		t.Fatalf("healthy: a owns the lock: %v, %v; want true", owned, err)
	}
	for _, m := range majority {
		if err := c.SetLinks(follower.Name(), m, cluster.Blackholed()); err != nil {
			t.Fatal(err)
		}
	}
	hb := mustLock(t, ctx, b) // once a's lease has expired on the majority side

	owned, err := ha.(Checker).Owned(ctx)
	if err != nil || !owned {
		t.Errorf("serializable check on the cut-off member while b holds the lock: %v, %v; want the stale yes", owned, err)
	}
	lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	owned, err = ha.(*serializableHeld).held.Owned(lctx) // the linearizable check
	cancel()
	if err == nil && owned {
		t.Errorf("linearizable check on the cut-off member said yes while b holds the lock")
	}
	t.Logf("a (token %d) asked %s, cut off: serializable yes; linearizable: %v, %v. b holds with token %d",
		ha.Token(), follower.Name(), owned, err, hb.Token())

	unlock(t, ctx, hb, nil)
	if err := c.HealAll(); err != nil {
		t.Fatal(err)
	}
	unlock(t, ctx, ha, ErrNotHeld)
}
