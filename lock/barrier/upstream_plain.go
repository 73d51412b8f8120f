package barrier

import (
	"context"
	"errors"
	"fmt"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	recipes "go.etcd.io/etcd/client/v3/experimental/recipes"

	"github.com/etcdsim/etcdsim/internal/ctxview"
)

// upstreamBarrier is etcd's recipes.Barrier, unmodified, run on a view of
// the client whose requests carry the caller's context. Its Wait returns
// nil whenever its watch channel closes: on the delete it waits for, but
// also when the watch is cancelled because the revision it resumes from
// was compacted — while the barrier is still held.
//
// One thing is ours: the view ends the recipe's watch when the caller's
// context ends, and the recipe then returns nil too; etcd's recipe,
// on context.TODO, would have gone on waiting. So a Wait whose context
// has ended returns the context's error, as every other recipe here does.
type upstreamBarrier struct {
	key  string
	mu   sync.Mutex // guards view's binding for the length of one call
	view *ctxview.View
	b    *recipes.Barrier
}

func newUpstreamBarrier(cli *clientv3.Client, name string) (Barrier, error) {
	if err := checkPlain(cli, name); err != nil {
		return nil, err
	}
	view := ctxview.New(cli, nil)
	key := DefaultPrefix + name
	return &upstreamBarrier{key: key, view: view, b: recipes.NewBarrier(view.Client(), key)}, nil
}

// Hold puts the barrier up, or returns ErrHeld if it is up already.
func (u *upstreamBarrier) Hold(ctx context.Context) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.view.Use(ctx)
	return holdError(u.key, u.b.Hold())
}

// Release takes the barrier down.
func (u *upstreamBarrier) Release(ctx context.Context) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.view.Use(ctx)
	if err := u.b.Release(); err != nil {
		return fmt.Errorf("barrier: %s: release: %w", u.key, err)
	}
	return nil
}

// Wait returns once the recipe's Wait does.
func (u *upstreamBarrier) Wait(ctx context.Context) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.view.Use(ctx)
	err := u.b.Wait()
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		return fmt.Errorf("barrier: %s: wait: %w", u.key, err)
	}
	return nil
}

// holdError is what Hold returns for the recipe's err.
func holdError(key string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, recipes.ErrKeyExists):
		return fmt.Errorf("%w: %s: hold: %w", ErrHeld, key, err)
	}
	return fmt.Errorf("barrier: %s: hold: %w", key, err)
}
