package scenarios

import (
	"context"
	"errors"
	"time"

	"github.com/etcdsim/etcdsim/faults"
)

// The workload kit: what every family's workload is built from — a step
// the fault gate lets through, a sleep that ends with the run, a context
// for work that must finish as the run ends, and the errors a run's end
// makes moot.

// finishing returns a context for work that must finish even as ctx
// ends — a release, a resign — bounded by limit, and by grace once ctx
// has ended, so that a run that is stopped or interrupted waits for it no
// longer than that. Its cancel must be called.
func finishing(ctx context.Context, limit, grace time.Duration) (context.Context, context.CancelFunc) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-fctx.Done():
		}
	})
	return fctx, func() { stop(); cancel() }
}

// step runs one step of client (or thread) name once the gate lets its
// process go: not while it is paused; with ErrRestarted if it crashed
// since its last step.
func (w *world) step(ctx context.Context, name string, do func() error) error {
	if err := w.env.Gate().Step(ctx, faults.Process(name)); err != nil {
		return err
	}
	return do()
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// closed reports whether c is closed.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// ignoreEnd is err, or nil once ctx has ended.
func ignoreEnd(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(err, ErrRecipe) {
		return nil
	}
	return err
}

// opCtx bounds one KV request by the patience.
func (w *world) opCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, w.s.Workload.Patience.D())
}
