package bubble

import (
	"context"
	"time"
)

// cancelPoll is how often, in virtual time, a bubble's context looks at
// the context outside it.
const cancelPoll = 50 * time.Millisecond

// Carrier takes a context from outside a bubble into it. Code in a bubble
// must not wait on an outside context itself: its Done channel was made
// outside the bubble, so a goroutine waiting on it is never durably blocked
// and the bubble's clock would stop.
type Carrier struct {
	outer     context.Context
	remaining time.Duration // outer's time left when carried; 0 without a deadline
}

// Carry captures outer, outside the bubble, for Context inside it.
func Carry(outer context.Context) Carrier {
	c := Carrier{outer: outer}
	if dl, ok := outer.Deadline(); ok {
		c.remaining = max(time.Until(dl), time.Nanosecond)
	}
	return c
}

// Context returns, inside the bubble, a context that ends when the carried
// one ends (with its cause), within cancelPoll of virtual time, and whose
// deadline is the time the carried one had left, counted on the bubble's
// clock. Call cancel when done; it ends the goroutine that watches outside.
func (c Carrier) Context() (context.Context, context.CancelFunc) {
	ctx, cancelCause := context.WithCancelCause(context.Background())
	cancel := func() { cancelCause(context.Canceled) }
	if c.remaining > 0 {
		var stopTimer context.CancelFunc
		ctx, stopTimer = context.WithTimeout(ctx, c.remaining)
		outerCancel := cancel
		cancel = func() { stopTimer(); outerCancel() }
	}
	outer := c.outer
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
