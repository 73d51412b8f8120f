package lock

import (
	"context"
	"errors"
	"testing"

	"github.com/etcdsim/etcdsim/cluster"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// newLocker returns a Locker of the recipe called recipe.
func newLocker(t testing.TB, recipe string, cli *clientv3.Client, name string, opts Options) Locker {
	t.Helper()
	r, err := Lookup(recipe)
	if err != nil {
		t.Fatal(err)
	}
	l, err := r.New(cli, name, opts)
	if err != nil {
		t.Fatalf("%s: New: %v", recipe, err)
	}
	return l
}

func mustLock(t testing.TB, ctx context.Context, l Locker) Held {
	t.Helper()
	h, err := l.Lock(ctx)
	if err != nil {
		t.Fatalf("Lock: %v", err)
	}
	return h
}

// pause emulates a process pause of client name: it reaches no member and
// the test runs none of its code until resume heals its links. Resume is
// also registered as a cleanup, and may be called more than once.
func pause(t testing.TB, c *cluster.Cluster, name string) (resume func()) {
	t.Helper()
	if err := c.Isolate(name); err != nil {
		t.Fatal(err)
	}
	resume = func() {
		t.Helper()
		for _, m := range c.Members() {
			if err := c.SetLinks(name, m.Name(), cluster.Healthy); err != nil {
				t.Errorf("resume %s: %v", name, err)
			}
		}
	}
	t.Cleanup(resume)
	return resume
}

// unlock unlocks h and checks the error is want (nil: no error).
func unlock(t testing.TB, ctx context.Context, h Held, want error) {
	t.Helper()
	err := h.Unlock(ctx)
	if !errors.Is(err, want) {
		t.Errorf("Unlock %s: got %v, want %v", h.Key(), err, want)
	}
}

// keyDeleted returns a channel closed once key has been deleted (or did
// not exist); it watches from the current revision.
func keyDeleted(ctx context.Context, cli *clientv3.Client, key string) <-chan struct{} {
	gone := make(chan struct{})
	go func() {
		resp, err := cli.Get(ctx, key)
		if err != nil {
			return
		}
		if len(resp.Kvs) == 0 {
			close(gone)
			return
		}
		for wr := range cli.Watch(ctx, key, clientv3.WithRev(resp.Header.Revision+1), clientv3.WithFilterPut()) {
			if len(wr.Events) > 0 {
				close(gone)
				return
			}
		}
	}()
	return gone
}
