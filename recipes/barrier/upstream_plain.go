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

// BROKEN (deliberately): etcd's own recipes.Barrier, run as it is; found
// by etcdsim and not reported upstream. Wait reads the key and watches
// it for its delete from the read's revision + 1, and returns nil when
// the watch channel closes, whatever closed it. A waiter whose
// connection drops while the holder's traffic moves the revision on, and
// etcd compacts, resumes its watch from a revision that is gone: etcd
// cancels the watch, the channel closes, and Wait returns nil with the
// barrier still up. Shown by the scenario
// upstream/etcdsim-barrier-wait/compacted-watch; the checked recipe is
// its fix.
//
// One thing is ours: the recipe runs on a view of the client whose
// requests carry the caller's context, and the view ends the recipe's
// watch when that context ends, where etcd's recipe, on context.TODO,
// would go on waiting. So a Wait whose context has ended returns the
// context's error, as every other recipe here does.
func newUpstreamBarrier(cli *clientv3.Client, name string) (Barrier, error) {
	if err := checkPlain(cli, name); err != nil {
		return nil, err
	}
	view := ctxview.New(cli, nil)
	key := DefaultPrefix + name
	return &upstreamBarrier{key: key, view: view, b: recipes.NewBarrier(view.Client(), key)}, nil
}

// upstreamBarrier is etcd's recipes.Barrier on a context view.
type upstreamBarrier struct {
	key  string
	mu   sync.Mutex // guards view's binding for the length of one call
	view *ctxview.View
	b    *recipes.Barrier
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
