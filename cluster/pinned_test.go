package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// A client linked to every member keeps its lease alive on one
// connection; PinnedMember names that member, and freezing it stops the
// renewals although the client still reaches the other two.
func TestPinnedMemberCarriesTheKeepAlive(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		c, ctx, cli := withClient(t)
		if _, err := c.PinnedMember("c1"); err == nil || !strings.Contains(err.Error(), "no open lease keepalive") {
			t.Fatalf("PinnedMember of a client with no stream and 3 links: %v, want an error saying it has no stream", err)
		}
		acks := keptAlive(t, ctx, cli)
		var pinned string
		var err error
		eventually(t, "the keepalive stream is seen", func() bool {
			pinned, err = c.PinnedMember("c1")
			return err == nil
		})
		m, err := c.Member(pinned)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Freeze(); err != nil {
			t.Fatal(err)
		}
		// Unary requests go to each connection in turn: those that land on
		// the others are served.
		served := 0
		for range 6 {
			pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
			if _, err := cli.Put(pctx, "k", "v"); err == nil {
				served++
			}
			cancel()
		}
		if served == 0 {
			t.Error("no put of the pinned client was served during the freeze; the other members should serve those sent their way")
		}
		timeout := time.After(4 * time.Second) // > TTL/3 + its slack: a renewal is due
		for waiting := true; waiting; {
			select {
			case <-acks:
				t.Fatal("a keepalive was acknowledged while the member carrying the stream was frozen")
			case <-timeout:
				waiting = false
			}
		}
		if _, err := m.Thaw(); err != nil {
			t.Fatal(err)
		}
		select {
		case _, ok := <-acks:
			if !ok {
				t.Fatal("the keepalive channel closed")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no keepalive acknowledged within 5s of the thaw")
		}
	})
}

func TestPinnedMemberOfAOneLinkClient(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		c := New(t, Config{Clock: ClockVirtual})
		client(t, c, "solo", "m2")
		got, err := c.PinnedMember("solo")
		if err != nil || got != "m2" {
			t.Errorf("PinnedMember(solo) = %q, %v; want m2", got, err)
		}
		if _, err := c.PinnedMember("nobody"); err == nil {
			t.Error("PinnedMember of an unknown client: no error")
		}
	})
}

// withClient starts a cluster on the virtual clock, every link 1ms long,
// and its client c1 linked to every member; ctx is the test's.
func withClient(t *testing.T) (c *Cluster, ctx context.Context, cli *clientv3.Client) {
	t.Helper()
	c = New(t, Config{Clock: ClockVirtual, Latency: time.Millisecond})
	return c, testCtx(t), client(t, c, "c1")
}

// keptAlive grants cli a lease of 6s and keeps it alive until the test
// ends, and returns the keep-alive's channel once its first answer has
// come: the client then has a stream open on one member.
func keptAlive(t *testing.T, ctx context.Context, cli *clientv3.Client) <-chan *clientv3.LeaseKeepAliveResponse {
	t.Helper()
	lease, err := cli.Grant(ctx, 6)
	if err != nil {
		t.Fatal(err)
	}
	kctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	acks, err := cli.KeepAlive(kctx, lease.ID)
	if err != nil {
		t.Fatal(err)
	}
	<-acks
	return acks
}
