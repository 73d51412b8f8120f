package cluster

import (
	"context"
	"testing"
	"time"

	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// The member a client's session is pinned to vanishes — its bytes are
// lost both ways, its connection stays open, no RST ever comes — while the
// other two keep a quorum and serve. Whether the session survives depends
// on the client's keepalive: with clientv3's default (no gRPC pings)
// nothing ends the dead connection, the lease keepalive stream waits on
// it, and the session ends when its TTL runs out; with pings, gRPC closes
// the connection after Time+Timeout and the keepalive moves to another
// member within the TTL.
func TestSessionAcrossPinnedMemberLoss(t *testing.T) {
	for _, tt := range []struct {
		name         string
		time, wait   time.Duration
		wantSurvives bool
	}{
		{name: "clientv3 default keepalive", wantSurvives: false},
		// gRPC pings no more often than every 10s, whatever is asked.
		{name: "keepalive 10s/2s", time: 10 * time.Second, wait: 2 * time.Second, wantSurvives: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
				const ttl = 30 // seconds: more than a renewal period (TTL/3) plus the 12s the pings take
				c := New(t, Config{Clock: ClockVirtual, Latency: time.Millisecond, ClientKeepAliveTime: tt.time, ClientKeepAliveTimeout: tt.wait})
				// Longer than testCtx: the story runs 90s of virtual time.
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				cli := client(t, c, "c1")
				s, err := concurrency.NewSession(cli, concurrency.WithTTL(ttl), concurrency.WithContext(ctx))
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				var pinned string
				eventually(t, "c1's keepalive stream is seen", func() bool {
					pinned, err = c.PinnedMember("c1")
					return err == nil
				})
				// Until its first renewal is answered the client gives the
				// lease 5s (clientv3's first keepalive timeout), not its TTL.
				time.Sleep(time.Second)
				for _, l := range [][2]string{{"c1", pinned}, {pinned, "c1"}} {
					if err := c.SetLinks(l[0], l[1], Blackholed()); err != nil {
						t.Fatal(err)
					}
				}
				lost := false
				select {
				case <-s.Done():
					lost = true
				case <-time.After(3 * ttl * time.Second):
				}
				obs := client(t, c, "obs", followersOf(c, pinned)...)
				resp, err := obs.TimeToLive(ctx, s.Lease())
				if err != nil {
					t.Fatal(err)
				}
				alive := !lost && resp.TTL > 0
				t.Logf("%s: %s pinned, blackholed for up to %ds; session survived %v (lease TTL now %d)", tt.name, pinned, 3*ttl, alive, resp.TTL)
				if alive != tt.wantSurvives {
					t.Errorf("session survived the loss of its pinned member %s: %v; want %v", pinned, alive, tt.wantSurvives)
				}
				if err := c.HealAll(); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

// followersOf returns the names of the members other than name.
func followersOf(c *Cluster, name string) []string {
	var out []string
	for _, m := range c.Members() {
		if m.Name() != name {
			out = append(out, m.Name())
		}
	}
	return out
}
