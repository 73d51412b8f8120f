// Package wallclock reads the time that passes in the world, even inside a
// testing/synctest bubble.
//
// In a bubble, time.Now, time.Since and every timer read the bubble's
// virtual clock, which moves only when every goroutine of the bubble is
// durably blocked. Work that only computes — a linearizability search, say
// — never blocks, so the virtual clock stands still for as long as it runs:
// a budget measured with time.Now never runs out, and a timer armed for it
// never fires. A budget for such work is measured here instead:
//
//	deadline := wallclock.Now().Add(budget)
//	for !done() {
//		if wallclock.Now().After(deadline) {
//			return errTimedOut
//		}
//		step()
//	}
//
// Outside a bubble Now reads the same clock as time.Now, without its
// monotonic reading.
package wallclock
