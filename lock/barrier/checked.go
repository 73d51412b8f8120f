package barrier

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	recipes "go.etcd.io/etcd/client/v3/experimental/recipes"

	"github.com/etcdsim/etcdsim/internal/ctxview"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/lock/lease"
)

// Checked is etcd's recipes.DoubleBarrier, unmodified, run on a view of
// the client whose requests carry the caller's context, with a session
// per process made again once it is lost. Two things are added around the
// recipe's calls:
//
//   - The recipe's waits return nil when their watch closes, whatever
//     closed it: the caller's context ending, the watch compacted. After
//     Enter returns nil, Checked reads <name>/ready, which the last to
//     enter puts and the last to leave deletes; if it is not there, the
//     wait ended early, and Enter returns an error. After Leave, the
//     caller's context is checked the same way.
//   - A failed Enter may have left the process's waiter key behind (the
//     recipe creates it first); tried again, the process would be counted
//     twice. So a failed Enter revokes its session — or, if the revoke
//     does not get through, stops renewing it and waits out its TTL — and
//     the next Enter starts a new one.
type Checked struct {
	cli   *clientv3.Client
	view  *ctxview.View
	pfx   string
	count int
	ttl   time.Duration

	mu sync.Mutex             // guards s and b
	s  *concurrency.Session   // the process's session; nil before the first Enter and after a failed one
	b  *recipes.DoubleBarrier // the barrier of the last Enter, for its Leave
}

var _ DoubleBarrier = (*Checked)(nil)

// NewChecked returns the correct recipe's side of the double barrier called
// name for count processes.
func NewChecked(cli *clientv3.Client, name string, count int, opts lock.Options) (DoubleBarrier, error) {
	return newChecked(cli, name, count, opts)
}

func newChecked(cli *clientv3.Client, name string, count int, opts lock.Options) (*Checked, error) {
	if err := check(cli, name, count); err != nil {
		return nil, err
	}
	ttl := opts.TTL
	if ttl == 0 {
		ttl = lock.DefaultTTL
	}
	if err := lease.CheckTTL(ttl); err != nil {
		return nil, fmt.Errorf("%w: barrier %q: Options.TTL: %w", ErrBadTTL, name, err)
	}
	return &Checked{cli: cli, view: ctxview.New(cli, nil), pfx: DefaultPrefix + name, count: count, ttl: ttl}, nil
}

// Enter returns once count processes have entered.
func (c *Checked) Enter(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.view.Use(ctx)
	if c.s != nil {
		select {
		case <-c.s.Done():
			c.s = nil
		default:
		}
	}
	if c.s == nil {
		s, err := concurrency.NewSession(c.view.Client(), concurrency.WithTTL(int(c.ttl/time.Second)),
			concurrency.WithContext(c.cli.Ctx()))
		if err != nil {
			return fmt.Errorf("barrier: %s: enter: session: %w", c.pfx, err)
		}
		c.s = s
	}
	c.b = recipes.NewDoubleBarrier(c.s, c.pfx, c.count)
	err := c.b.Enter()
	if err == nil {
		err = c.ready(ctx)
	}
	if err != nil {
		c.giveUp(ctx)
		if errors.Is(err, recipes.ErrTooManyClients) {
			return fmt.Errorf("%w: %s: enter: %w", ErrFull, c.pfx, err)
		}
		return fmt.Errorf("barrier: %s: enter: %w", c.pfx, err)
	}
	return nil
}

// ready reads whether the barrier is open.
func (c *Checked) ready(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	resp, err := c.cli.Get(ctx, c.pfx+"/ready")
	switch {
	case err != nil:
		return err
	case len(resp.Kvs) == 0:
		return errors.New("the wait ended but the barrier is not ready (a compacted watch?)")
	}
	return nil
}

// giveUp ends the session of a failed Enter, so that its waiter key goes.
func (c *Checked) giveUp(ctx context.Context) {
	s := c.s
	c.s, c.b = nil, nil
	if s == nil {
		return
	}
	s.Orphan()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.ttl/2)
	defer cancel()
	if _, err := c.cli.Revoke(rctx, s.Lease()); err == nil {
		return
	}
	t := time.NewTimer(c.ttl + time.Second) // not renewed since: gone by then
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Leave returns once every process that entered has left.
func (c *Checked) Leave(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.b == nil {
		return fmt.Errorf("barrier: %s: leave: not entered", c.pfx)
	}
	c.view.Use(ctx)
	err := c.b.Leave()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("barrier: %s: leave: %w", c.pfx, err)
	}
	c.b = nil
	return nil
}
