package election_test

import (
	"context"
	"testing"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/election"
	clientv3 "go.etcd.io/etcd/client/v3"
)

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

// isolate cuts the client called name off from every member, as a process
// pause would, and heals it when the test ends (before the electors close).
func isolate(t *testing.T, c *cluster.Cluster, name string) {
	t.Helper()
	if err := c.Isolate(name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Heal(name); err != nil {
			t.Error(err)
		}
	})
}
