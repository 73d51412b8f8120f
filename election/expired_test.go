package election_test

import (
	"errors"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/election"
)

// TestLeaseExpiredWhileWaiting: candidate B waits behind leader A, is cut
// off past its TTL so its key expires, and C campaigns. A resigns: C leads.
// When B hears etcd again, its Campaign returns an error wrapping
// ErrLeaseExpired. The upstream Campaign tells B that it leads instead:
// the scenario election/unchecked/pause-waiter shows that, judged by the
// election-safety checker.
func TestLeaseExpiredWhileWaiting(t *testing.T) {
	for _, name := range []string{"rechecked", "server"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				ctx := clustertest.Context(t)
				prefix := "/expired/" + name
				good := recipe(t, "rechecked")
				long := election.Options{TTL: 10 * time.Second}
				ocli := clustertest.Client(t, c, "o-"+name)
				a := newElector(t, good, clustertest.Client(t, c, "a-"+name), prefix, long)
				bname := "b-" + name
				b := newElector(t, recipe(t, name), clustertest.Client(t, c, bname), prefix, election.Options{TTL: time.Second})
				cc := newElector(t, good, clustertest.Client(t, c, "c-"+name), prefix, long)

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

				if !errors.Is(wb.err, election.ErrLeaseExpired) {
					t.Fatalf("B's campaign: got %v (leadership %v), want ErrLeaseExpired", wb.err, wb.l)
				}
			})
		})
	}
}
