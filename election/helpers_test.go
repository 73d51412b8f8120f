package election_test

import (
	"context"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/election"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// patience bounds every wait in these tests. It is generous on purpose:
// the machines are shared, and speed is not what is tested.
const patience = 90 * time.Second

// testCtx returns a context that ends when the test does or after patience.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	t.Cleanup(cancel)
	return ctx
}

// client returns the cluster's client called name, failing the test if it
// cannot be made.
func client(t testing.TB, c *cluster.Cluster, name string) *clientv3.Client {
	t.Helper()
	cli, err := c.Client(name)
	if err != nil {
		t.Fatal(err)
	}
	return cli
}

// newElector builds a candidate with recipe r and closes it when the test
// ends.
func newElector(t *testing.T, r election.Recipe, cli *clientv3.Client, prefix string, opts election.Options) election.Elector {
	t.Helper()
	e, err := r.New(cli, prefix, opts)
	if err != nil {
		t.Fatalf("%s: %v", r.Name, err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("%s: close: %v", r.Name, err)
		}
	})
	return e
}

// recipe looks a recipe up by name.
func recipe(t *testing.T, name string) election.Recipe {
	t.Helper()
	r, err := election.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// won is the outcome of a Campaign run in the background.
type won struct {
	l   election.Leadership
	err error
}

// campaign runs e.Campaign in the background.
func campaign(ctx context.Context, e election.Elector, value string) <-chan won {
	ch := make(chan won, 1)
	go func() {
		l, err := e.Campaign(ctx, value)
		ch <- won{l, err}
	}()
	return ch
}

// waitFor waits for a Campaign started with campaign.
func waitFor(t *testing.T, ctx context.Context, ch <-chan won) won {
	t.Helper()
	select {
	case w := <-ch:
		return w
	case <-ctx.Done():
		t.Fatalf("campaign still running: %v", ctx.Err())
		return won{}
	}
}

// waitKeys waits until exactly n keys exist under pfx, watching between
// reads.
func waitKeys(t testing.TB, ctx context.Context, cli *clientv3.Client, pfx string, n int) {
	t.Helper()
	for {
		resp, err := cli.Get(ctx, pfx, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatalf("count keys under %s: %v", pfx, err)
		}
		if resp.Count == int64(n) {
			return
		}
		wctx, cancel := context.WithCancel(ctx)
		wr := <-cli.Watch(wctx, pfx, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
		cancel()
		if ctx.Err() != nil {
			t.Fatalf("want %d keys under %s, have %d: %v", n, pfx, resp.Count, ctx.Err())
		}
		_ = wr
	}
}

// isolate cuts the client called name off from every member, as a process
// pause would, and heals it when the test ends (before the electors close).
func isolate(t *testing.T, c *cluster.Cluster, name string) {
	t.Helper()
	if err := c.Isolate(name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { heal(t, c, name) })
}

// heal makes the links of the client called name healthy again.
func heal(t *testing.T, c *cluster.Cluster, name string) {
	t.Helper()
	for _, m := range c.Members() {
		if err := c.SetLinks(name, m.Name(), cluster.Healthy); err != nil {
			t.Error(err)
		}
	}
}

// isClosed reports whether ch is closed now.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
