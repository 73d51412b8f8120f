package election_test

import (
	"errors"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/election"
)

// TestProclaimByModRevision: in an election ordered by mod
// revision, the leader's Proclaim makes the waiting follower lead too. The
// correct recipes keep the follower waiting until the leader resigns.
func TestProclaimByModRevision(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	tests := []struct {
		name       string
		twoLeaders bool
	}{
		{name: "rechecked"},
		{name: "server"},
		{name: "modrevision", twoLeaders: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			r := recipe(t, tt.name)
			prefix := "/modrev/" + tt.name
			opts := election.Options{TTL: 5 * time.Second}
			a := newElector(t, r, clustertest.Client(t, c, "a-"+tt.name), prefix, opts)
			bcli := clustertest.Client(t, c, "b-"+tt.name)
			b := newElector(t, r, bcli, prefix, opts)

			la, err := a.Campaign(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			bwon := campaign(ctx, b, "b")
			clustertest.WaitKeys(t, ctx, bcli, prefix+"/", 2)
			if err := la.Proclaim(ctx, "a2"); err != nil {
				t.Fatal(err)
			}

			if tt.twoLeaders {
				w := waitFor(t, ctx, bwon)
				if w.err != nil {
					t.Fatalf("follower's campaign: %v", w.err)
				}
				if clustertest.Closed(la.Done()) {
					t.Fatal("the first leader lost its leadership; want it still leading")
				}
				t.Logf("two leaders: %s (term %d) and %s (term %d) after a proclamation", la.Key(), la.Term(), w.l.Key(), w.l.Term())
				return
			}
			// The follower sees the proclamation (its observer reads with
			// the same client) and still does not lead.
			obs := b.Observe(ctx)
			for info := range obs {
				if info.Value == "a2" {
					break
				}
			}
			select {
			case w := <-bwon:
				t.Fatalf("follower won while the leader leads: %+v", w)
			default:
			}
			if err := la.Resign(ctx); err != nil {
				t.Fatal(err)
			}
			w := waitFor(t, ctx, bwon)
			if w.err != nil {
				t.Fatal(w.err)
			}
			if w.l.Term() <= la.Term() {
				t.Errorf("term %d follows term %d", w.l.Term(), la.Term())
			}
		})
	}
}

// TestPausedLeader: a leader paused (cut off) past its TTL
// while another candidate is elected. A correct leadership's Done is
// closed by the time the other candidate wins; one that ignores it still
// believes it leads.
func TestPausedLeader(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	tests := []struct {
		name       string
		twoLeaders bool
	}{
		{name: "rechecked"},
		{name: "server"},
		{name: "ignoresdone", twoLeaders: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			prefix := "/paused/" + tt.name
			// 2s leaves the guard a margin of 500ms for scheduling delays.
			opts := election.Options{TTL: 2 * time.Second}
			aname := "a-" + tt.name
			a := newElector(t, recipe(t, tt.name), clustertest.Client(t, c, aname), prefix, opts)
			b := newElector(t, recipe(t, "rechecked"), clustertest.Client(t, c, "b-"+tt.name), prefix, opts)

			la, err := a.Campaign(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			isolate(t, c, aname) // the leader's process stops hearing etcd
			lb, err := b.Campaign(ctx, "b")
			if err != nil {
				t.Fatal(err)
			}
			aDone := clustertest.Closed(la.Done())
			t.Logf("%s won term %d; the paused leader's Done closed: %v", lb.Key(), lb.Term(), aDone)
			if tt.twoLeaders && aDone {
				t.Fatal("want the paused leader to still believe it leads")
			}
			if !tt.twoLeaders && !aDone {
				t.Fatal("two leaders: the paused leader's Done was still open when another won")
			}
		})
	}
}

// TestLeaseExpiredWhileWaiting (etcd #19597): candidate B
// waits behind leader A, is cut off past its TTL so its key expires, and C
// campaigns. A resigns: C leads. When B hears etcd again, the upstream
// Campaign tells it that it leads too; the correct recipes say its lease
// expired.
func TestLeaseExpiredWhileWaiting(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	tests := []struct {
		name    string
		phantom bool
	}{
		{name: "rechecked"},
		{name: "server"},
		{name: "unchecked", phantom: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			prefix := "/expired/" + tt.name
			good := recipe(t, "rechecked")
			long := election.Options{TTL: 10 * time.Second}
			ocli := clustertest.Client(t, c, "o-"+tt.name)
			a := newElector(t, good, clustertest.Client(t, c, "a-"+tt.name), prefix, long)
			bname := "b-" + tt.name
			b := newElector(t, recipe(t, tt.name), clustertest.Client(t, c, bname), prefix, election.Options{TTL: time.Second})
			cc := newElector(t, good, clustertest.Client(t, c, "c-"+tt.name), prefix, long)

			la, err := a.Campaign(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			bwon := campaign(ctx, b, "b")
			clustertest.WaitKeys(t, ctx, ocli, prefix+"/", 2)
			isolate(t, c, bname)
			clustertest.WaitKeys(t, ctx, ocli, prefix+"/", 1) // B's lease expired, its key is gone
			cwon := campaign(ctx, cc, "c")
			clustertest.WaitKeys(t, ctx, ocli, prefix+"/", 2)
			if err := la.Resign(ctx); err != nil {
				t.Fatal(err)
			}
			wc := waitFor(t, ctx, cwon)
			if wc.err != nil {
				t.Fatal(wc.err)
			}
			if err := c.Heal(bname); err != nil {
				t.Error(err)
			}
			wb := waitFor(t, ctx, bwon)

			if !tt.phantom {
				if !errors.Is(wb.err, election.ErrLeaseExpired) {
					t.Fatalf("B's campaign: got %v (leadership %v), want ErrLeaseExpired", wb.err, wb.l)
				}
				return
			}
			if wb.err != nil {
				t.Fatalf("want the upstream Campaign to report leadership, got %v", wb.err)
			}
			info, err := cc.Leader(ctx)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := ocli.Get(ctx, wb.l.Key())
			if err != nil {
				t.Fatal(err)
			}
			if info.Key != wc.l.Key() || len(resp.Kvs) != 0 || clustertest.Closed(wc.l.Done()) {
				t.Fatalf("want C (%s) leading and B's key %s gone; leader %+v, B's key present: %v", wc.l.Key(), wb.l.Key(), info, len(resp.Kvs) != 0)
			}
			t.Logf("phantom leadership: B was told it leads as %s (term %d), which no longer exists, while C leads as %s (term %d)",
				wb.l.Key(), wb.l.Term(), wc.l.Key(), wc.l.Term())
		})
	}
}
