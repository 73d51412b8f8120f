package bubble

import (
	"context"
	"time"

	"github.com/etcdsim/etcdsim/internal/wallclock"
)

// cancelPoll is how often, in virtual time, a bubble's context looks at
// the context outside it.
const cancelPoll = 50 * time.Millisecond

// Context returns, for code inside a bubble, a context that carries outer
// in: it ends when outer ends (with outer's cause), within cancelPoll of
// virtual time, and its deadline is the wall time outer has left, counted
// on the bubble's clock. Code in a bubble must not wait on outer itself:
// outer's Done channel was made outside the bubble, so a goroutine waiting
// on it is never durably blocked and the bubble's clock would stop. Call
// cancel when done; it ends the goroutine that watches outer.
func Context(outer context.Context) (context.Context, context.CancelFunc) {
	ctx, cancelCause := context.WithCancelCause(context.Background())
	cancel := func() { cancelCause(context.Canceled) }
	if dl, ok := outer.Deadline(); ok {
		var stopTimer context.CancelFunc
		ctx, stopTimer = context.WithTimeout(ctx, max(dl.Sub(WallNow()), time.Nanosecond))
		outerCancel := cancel
		cancel = func() { stopTimer(); outerCancel() }
	}
	go func() {
		tick := time.NewTicker(cancelPoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if outer.Err() != nil {
					cancelCause(context.Cause(outer))
					return
				}
			}
		}
	}()
	return ctx, cancel
}

// WallNow reads the wall clock, even in a bubble, whose time.Now is
// virtual (wallclock.Now).
func WallNow() time.Time { return wallclock.Now() }
