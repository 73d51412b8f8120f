package barrier

import (
	"context"
	"errors"
	"fmt"
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
//     wait ended early, and Enter returns an error. In the same read it
//     checks that its own waiter key is still there, after renewing its
//     lease: a wait that ends late — a watch stalled behind a partition
//     — may find the barrier open but the process's lease expired and
//     its key gone, and the others free to leave (ErrLeaseLost). After
//     Leave, the caller's context is checked the same way.
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

// ready checks, after the recipe's wait, that the barrier is open and
// that the process is still in it. The wait may end long after the
// barrier opened — a watch through a member cut off resumes once the
// partition heals — and meanwhile the process's lease may have expired
// and its waiter key gone: the others no longer count it and may leave at
// once. So the lease is renewed first, synchronously: once that answers,
// the leader holds it for a full TTL, and the session renews it from
// there. Then <name>/ready and the process's waiter key are read in one
// revision: both must be there.
func (c *Checked) ready(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	id := c.s.Lease()
	if _, err := c.cli.KeepAliveOnce(ctx, id); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return fmt.Errorf("%w: renewing lease %x after the wait: %w", ErrLeaseLost, id, err)
	}
	resp, err := c.cli.Txn(ctx).Then(
		clientv3.OpGet(c.pfx+"/ready"),
		clientv3.OpGet(c.pfx+"/waiters/", clientv3.WithPrefix()),
	).Commit()
	if err != nil {
		return err
	}
	if len(resp.Responses[0].GetResponseRange().Kvs) == 0 {
		return errors.New("the wait ended but the barrier is not ready (a compacted watch?)")
	}
	for _, kv := range resp.Responses[1].GetResponseRange().Kvs {
		if clientv3.LeaseID(kv.Lease) == id {
			return nil
		}
	}
	return fmt.Errorf("%w: the barrier is open, but the waiter key of lease %x is gone", ErrLeaseLost, id)
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
