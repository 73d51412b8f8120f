package lock

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// testTimeout bounds every wait in this package's tests: generous for a
// loaded 2-core machine, short enough to fail instead of hanging.
const testTimeout = 30 * time.Second

func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newClient creates the client called name, linked to members (nil: all).
func newClient(t testing.TB, c *cluster.Cluster, name string, members ...string) *clientv3.Client {
	t.Helper()
	cli, err := c.NewClient(name, cluster.ClientConfig{Members: members})
	if err != nil {
		t.Fatal(err)
	}
	return cli
}

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

// result is the outcome of a Lock run in the background.
type result struct {
	h   Held
	err error
}

// lockAsync starts l.Lock(ctx) and returns the channel its result arrives
// on. The caller must receive from it before the test ends.
func lockAsync(ctx context.Context, l Locker) <-chan result {
	ch := make(chan result, 1)
	go func() {
		h, err := l.Lock(ctx)
		ch <- result{h, err}
	}()
	return ch
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

// isOpen reports whether ch is still open.
func isOpen(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return false
	default:
		return true
	}
}

// waitKeys waits until at least n keys exist under prefix, watching
// rather than polling.
func waitKeys(t testing.TB, ctx context.Context, cli *clientv3.Client, prefix string, n int) {
	t.Helper()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var changes clientv3.WatchChan
	for {
		resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatalf("count keys under %s: %v", prefix, err)
		}
		if resp.Count >= int64(n) {
			return
		}
		if changes == nil {
			changes = cli.Watch(wctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
		}
		if _, ok := <-changes; !ok {
			t.Fatalf("waiting for %d keys under %s (have %d): %v", n, prefix, resp.Count, ctx.Err())
		}
	}
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
