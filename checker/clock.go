package checker

import (
	"time"
)

// Clock is a run's monotonic clock. Every time in a history, and every fault
// event, is a duration since the clock's origin, so operations and faults
// recorded by different parts of a run can be drawn on one axis.
//
// The zero Clock is not useful; use NewClock. A Clock is safe for concurrent use.
type Clock struct {
	origin time.Time // carries Go's monotonic reading; never changed after NewClock
}

// NewClock returns a clock whose origin is now.
func NewClock() *Clock { return &Clock{origin: time.Now()} }

// NewClockAt returns a clock whose origin is t. Use it to put a second recorder
// on the axis of an existing run.
func NewClockAt(t time.Time) *Clock { return &Clock{origin: t} }

// Now returns the time elapsed since the clock's origin, read from the
// monotonic clock (immune to wall-clock steps).
func (c *Clock) Now() time.Duration { return time.Since(c.origin) }

// Origin returns the wall-clock instant the clock counts from.
func (c *Clock) Origin() time.Time { return c.origin }

// Since returns the duration from the clock's origin to t.
func (c *Clock) Since(t time.Time) time.Duration { return t.Sub(c.origin) }
