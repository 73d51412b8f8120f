package barrier

import (
	"context"
	"errors"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lock"
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
type Checked struct{ doubleRun }

var _ DoubleBarrier = (*Checked)(nil)

// NewChecked returns the correct recipe's side of the double barrier called
// name for count processes.
func NewChecked(cli *clientv3.Client, name string, count int, opts lock.Options) (DoubleBarrier, error) {
	return newChecked(cli, name, count, opts)
}

func newChecked(cli *clientv3.Client, name string, count int, opts lock.Options) (*Checked, error) {
	c := &Checked{}
	if err := c.init(cli, name, count, opts); err != nil {
		return nil, err
	}
	return c, nil
}

// Enter returns once count processes have entered.
func (c *Checked) Enter(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.begin(ctx); err != nil {
		return err
	}
	err := c.b.Enter()
	if err == nil {
		err = c.ready(ctx)
	}
	if err != nil {
		c.giveUp(ctx)
		return c.enterErr(err)
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
func (c *Checked) Leave(ctx context.Context) error { return c.leave(ctx) }
