package lock

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
)

// A revoke whose answer is lost was applied all the same; asked again,
// etcd says the lease is not found. revoke must count that as its own
// doing (alive), not as an expiry that lost the lock before unlock — what
// it said when clientv3's Lease.Revoke resent the request by itself and
// returned only the second answer. The heal resets the connection while
// the answer is in flight, which the caller hears as Unavailable; should
// the answer get through instead, both readings say alive and that
// round tests nothing, so there are three.
func TestRevokeWhoseAnswerWasLostSaysAlive(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		observer := clustertest.Client(t, c, "observer")
		for attempt := range 3 {
			ctx := clustertest.Context(t)
			name := fmt.Sprintf("revoke-%d", attempt)
			cli := clustertest.Client(t, c, name)
			lease, err := cli.Grant(ctx, 60)
			if err != nil {
				t.Fatal(err)
			}
			setAnswers := func(cond cluster.Condition) {
				for _, m := range c.Members() {
					if err := c.SetLink(m.Name(), name, cond); err != nil {
						t.Fatal(err)
					}
				}
			}
			setAnswers(cluster.Blackholed())
			type result struct {
				alive bool
				err   error
			}
			done := make(chan result, 1)
			go func() {
				alive, err := revoke(ctx, cli, lease.ID)
				done <- result{alive, err}
			}()
			clustertest.Eventually(t, ctx, "the revoke is applied", func(ctx context.Context) error {
				resp, err := observer.TimeToLive(ctx, lease.ID)
				switch {
				case err != nil:
					return err
				case resp.TTL != -1:
					return fmt.Errorf("lease %x still has %d s to live", lease.ID, resp.TTL)
				}
				return nil
			})
			start := time.Now()
			setAnswers(cluster.Healthy)
			r := <-done
			if r.err != nil {
				t.Fatalf("revoke whose answer was lost: %v", r.err)
			}
			if !r.alive {
				t.Fatalf("revoke whose answer was lost reported lease %x expired before it; want alive: its own first attempt revoked it", lease.ID)
			}
			t.Logf("attempt %d: revoke answered alive %v after the heal", attempt, time.Since(start).Round(time.Millisecond))
		}
	})
}
