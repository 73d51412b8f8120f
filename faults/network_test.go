package faults_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/faults"
)

// Isolating the leader: the majority elects a new leader with a higher
// term, and the old leader, though it may still think it leads, cannot
// commit.
func TestIsolateLeader(t *testing.T) {
	ctx := testCtx(t)
	c, env := start(t, 3)
	old, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	oldTerm := old.Term()
	heal := inject(ctx, t, env, faults.Isolate(faults.Leader))

	eventually(ctx, t, "a new leader on the majority side", func(ctx context.Context) error {
		lead, err := c.Leader(ctx)
		if err != nil {
			return err
		}
		if lead == old {
			return fmt.Errorf("%s still leads", old.Name())
		}
		if lead.Term() <= oldTerm {
			return fmt.Errorf("new leader %s in term %d, not above %d", lead.Name(), lead.Term(), oldTerm)
		}
		return nil
	})
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	_, err = direct(t, old).Put(pctx, "through-old-leader", "x")
	cancel()
	if err == nil {
		t.Fatalf("a write through the isolated old leader %s committed", old.Name())
	}
	if err := heal(ctx); err != nil {
		t.Fatal(err)
	}
	healthy(ctx, t, c)
	resp, err := observer(t, c).Get(ctx, "through-old-leader")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 0 {
		t.Errorf("the write through the isolated old leader is visible after the heal: %v", resp.Kvs)
	}
	checkEvent(t, lastEvent(t, env), "isolate(leader)", []string{old.Name()})
	if links := c.Links(); len(links) != 0 {
		t.Errorf("links still faulty after the heal: %v", links)
	}
}
