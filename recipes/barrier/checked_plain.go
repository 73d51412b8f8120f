package barrier

import (
	"context"
	"fmt"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	recipes "go.etcd.io/etcd/client/v3/experimental/recipes"

	"github.com/etcdsim/etcdsim/internal/ctxview"
)

// CheckedBarrier is etcd's recipes.Barrier, unmodified, run on a view of
// the client whose requests carry the caller's context, with one thing
// added around Wait. The recipe's Wait returns nil whenever its watch
// closes, and a watch closes not only on the delete it waits for: one
// that resumes, after the client reconnects, from a revision etcd has
// compacted away is cancelled. So before the recipe's Wait, CheckedBarrier
// reads the key and notes the revision that created it; after, it reads
// the key again. Gone, or made again by a later Hold (another create
// revision), the barrier was released during the wait, and Wait returns
// nil. Still the same key, the wait ended early, and it waits again.
//
// Waiting again rather than failing: the barrier is held, so what the
// caller asked for — to go on once it is released — has not happened and
// still can; an error would only move the same loop into every caller.
// Each round starts from a fresh read, so its watch starts at a revision
// etcd still has.
type CheckedBarrier struct {
	cli  *clientv3.Client
	key  string
	mu   sync.Mutex // guards view's binding for the length of one call
	view *ctxview.View
	b    *recipes.Barrier
}

var _ Barrier = (*CheckedBarrier)(nil)

// NewCheckedBarrier returns the correct recipe's side of the plain barrier
// called name.
func NewCheckedBarrier(cli *clientv3.Client, name string) (Barrier, error) {
	if err := checkPlain(cli, name); err != nil {
		return nil, err
	}
	view := ctxview.New(cli, nil)
	key := DefaultPrefix + name
	return &CheckedBarrier{cli: cli, key: key, view: view, b: recipes.NewBarrier(view.Client(), key)}, nil
}

// Hold puts the barrier up, or returns ErrHeld if it is up already.
func (c *CheckedBarrier) Hold(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.view.Use(ctx)
	return holdError(c.key, c.b.Hold())
}

// Release takes the barrier down.
func (c *CheckedBarrier) Release(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.view.Use(ctx)
	if err := c.b.Release(); err != nil {
		return fmt.Errorf("barrier: %s: release: %w", c.key, err)
	}
	return nil
}

// Wait returns once the barrier has been released since Wait was called.
func (c *CheckedBarrier) Wait(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.view.Use(ctx)
	held, err := c.heldSince(ctx)
	for err == nil && held != 0 {
		if err = c.b.Wait(); err != nil {
			break
		}
		if err = ctx.Err(); err != nil {
			err = context.Cause(ctx)
			break
		}
		var now int64
		if now, err = c.heldSince(ctx); now != held {
			held = 0 // released, perhaps held again since
		}
	}
	if err != nil {
		return fmt.Errorf("barrier: %s: wait: %w", c.key, err)
	}
	return nil
}

// heldSince reads the key's create revision, 0 if the barrier is down.
func (c *CheckedBarrier) heldSince(ctx context.Context) (int64, error) {
	resp, err := c.cli.Get(ctx, c.key)
	if err != nil || len(resp.Kvs) == 0 {
		return 0, err
	}
	return resp.Kvs[0].CreateRevision, nil
}
