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
	"github.com/etcdsim/etcdsim/lease"
	"github.com/etcdsim/etcdsim/lock"
)

// doubleRun is what the double-barrier recipes built on etcd's
// recipes.DoubleBarrier share: their arguments checked, a view of the
// client whose requests carry the caller's context, a session per process
// made again once it is lost, and the barrier of the last Enter for its
// Leave.
type doubleRun struct {
	cli   *clientv3.Client
	view  *ctxview.View
	pfx   string
	count int
	ttl   time.Duration

	mu sync.Mutex             // guards s, b and view's binding for the length of one call
	s  *concurrency.Session   // the process's session; nil before the first Enter and after a failed one
	b  *recipes.DoubleBarrier // the barrier of the last Enter, for its Leave
}

// init checks the arguments of a recipe's constructor and sets d up.
func (d *doubleRun) init(cli *clientv3.Client, name string, count int, opts lock.Options) error {
	if err := check(cli, name, count); err != nil {
		return err
	}
	ttl := opts.TTL
	if ttl == 0 {
		ttl = lock.DefaultTTL
	}
	if err := lease.CheckTTL(ttl); err != nil {
		return fmt.Errorf("%w: barrier %q: Options.TTL: %w", ErrBadTTL, name, err)
	}
	d.cli, d.view, d.pfx, d.count, d.ttl = cli, ctxview.New(cli, nil), DefaultPrefix+name, count, ttl
	return nil
}

// begin readies an Enter, d.mu held: the view bound to ctx, a live
// session, and a new barrier on it in d.b.
func (d *doubleRun) begin(ctx context.Context) error {
	d.view.Use(ctx)
	if d.s != nil {
		select {
		case <-d.s.Done():
			d.s = nil
		default:
		}
	}
	if d.s == nil {
		s, err := concurrency.NewSession(d.view.Client(), concurrency.WithTTL(int(d.ttl/time.Second)),
			concurrency.WithContext(d.cli.Ctx()))
		if err != nil {
			return fmt.Errorf("barrier: %s: enter: session: %w", d.pfx, err)
		}
		d.s = s
	}
	d.b = recipes.NewDoubleBarrier(d.s, d.pfx, d.count)
	return nil
}

// enterErr wraps the error of a failed Enter; a full barrier's wraps
// ErrFull.
func (d *doubleRun) enterErr(err error) error {
	if errors.Is(err, recipes.ErrTooManyClients) {
		return fmt.Errorf("%w: %s: enter: %w", ErrFull, d.pfx, err)
	}
	return fmt.Errorf("barrier: %s: enter: %w", d.pfx, err)
}

// leave runs the recipe's Leave for the last Enter. The recipe's wait
// returns nil when its watch closes, the caller's context ending too, so
// a nil from it after ctx has ended is ctx's error.
func (d *doubleRun) leave(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.b == nil {
		return fmt.Errorf("barrier: %s: leave: not entered", d.pfx)
	}
	d.view.Use(ctx)
	err := d.b.Leave()
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		return fmt.Errorf("barrier: %s: leave: %w", d.pfx, err)
	}
	d.b = nil
	return nil
}
