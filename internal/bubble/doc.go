// Package bubble runs code on a virtual clock: inside a testing/synctest
// bubble, where time.Now, timers and sleeps read a clock that moves only when
// every goroutine of the bubble is durably blocked, and then jumps straight
// to the next timer. A run that mostly waits — for whole-second lease TTLs,
// heartbeats, election timeouts — costs its CPU time, not its wall time.
//
// synctest.Test needs a *testing.T. In a test, Test (or Run after UseT)
// supplies the test's own. A program has none, so Host runs the program's
// main as the single test of an in-process testing.Main: every Run then
// opens its bubble in a subtest of that test, and subtests may run from
// many goroutines at once, so many bubbles run side by side. See Host for
// why this and not a go:linkname to the runtime.
//
// A bubble can freeze: a goroutine spinning, or stuck on a sync.Mutex that
// a durably blocked goroutine holds, is never durably blocked itself, so
// the clock stops and nothing tells. Run watches the bubble's clock from
// outside on the wall clock and reports a Frozen bubble — with every
// goroutine's stack and the ones that were not durably blocked named —
// through Options.OnFrozen.
package bubble
