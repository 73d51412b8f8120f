package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/internal/patience"
)

// These helpers mirror a few of cluster/clustertest's: this package's tests
// are internal (they read unexported state) and clustertest imports
// cluster, so they cannot import it without a cycle.

// testTimeout is the generous deadline for waits in this package's tests
// on an idle machine: long enough for a loaded 2-core one, short enough to
// fail instead of hanging. testCtx scales it by how slow the machine is now
// (the race detector, its load): most of this package's tests run on the
// real clock, where an election or a process start takes as long as the
// CPU it shares lets it.
const testTimeout = 30 * time.Second

func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(testTimeout))
	t.Cleanup(cancel)
	return ctx
}

func leader(t testing.TB, c *Cluster) *Member {
	t.Helper()
	m, err := c.Leader(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// followers returns the running members other than lead.
func followers(c *Cluster, lead *Member) []*Member {
	var out []*Member
	for _, m := range c.Members() {
		if m != lead && m.Running() {
			out = append(out, m)
		}
	}
	return out
}

func client(t testing.TB, c *Cluster, name string, members ...string) *clientv3.Client {
	t.Helper()
	cli, err := c.NewClient(name, ClientConfig{Members: members})
	if err != nil {
		t.Fatal(err)
	}
	return cli
}

// put writes key=val, retrying until the deadline: a write that fails now
// may succeed once a new leader is elected.
func put(t testing.TB, cli *clientv3.Client, key, val string) {
	t.Helper()
	ctx := testCtx(t)
	for {
		rctx, cancel := context.WithTimeout(ctx, patience.Scale(time.Second))
		_, err := cli.Put(rctx, key, val)
		cancel()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("put %s=%s: %v", key, val, err)
		}
	}
}

// get reads key with a linearizable read, retrying until the deadline.
func get(t testing.TB, cli *clientv3.Client, key string) string {
	t.Helper()
	ctx := testCtx(t)
	for {
		rctx, cancel := context.WithTimeout(ctx, patience.Scale(time.Second))
		resp, err := cli.Get(rctx, key)
		cancel()
		if err == nil {
			if len(resp.Kvs) == 0 {
				return ""
			}
			return string(resp.Kvs[0].Value)
		}
		if ctx.Err() != nil {
			t.Fatalf("get %s: %v", key, err)
		}
	}
}

// eventually polls cond every 10ms until it holds or the deadline passes.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	ctx := testCtx(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting until %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func clientWithPrefix() clientv3.OpOption { return clientv3.WithPrefix() }

// loadProof returns cfg with raft's timing stretched by how slow the
// machine is now (patience.Scale of the fast profile's 10 ms heartbeat and
// 100 ms election timeout), for a test on the real clock whose assertion
// does not depend on that timing. On two cores under heavy load, and more
// so under the race detector, a member can wait longer than 100 ms for a
// CPU: its peers start an election, and then another, and a start sees
// term after term and is never ready.
func loadProof(cfg Config) Config {
	hb := patience.Heartbeat()
	cfg.HeartbeatInterval, cfg.ElectionTimeout = hb, 10*hb
	return cfg
}

// tryAgain calls f until it returns nil or ctx ends, and returns its last
// error; each call is bounded by what f does with ctx (an etcd request by
// the server's own request timeout as well).
func tryAgain(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}
