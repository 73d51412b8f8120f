package simrun_test

import (
	"testing"

	"github.com/etcdsim/etcdsim/internal/patience"
)

// skipUnderRace skips, under the race detector, a test (or a case of one)
// whose runs all go on in programs it builds and starts (simrun, badsim):
// go build makes them without the detector, so under -race it watches only
// the test's exec and wait, while the programs' clusters take the race
// line's time. make test runs the test without the detector, in its own
// line (test-children, the Makefile's PROCESS_TESTS).
func skipUnderRace(t *testing.T) {
	t.Helper()
	if patience.RaceEnabled {
		t.Skip("race detector on: its runs are in programs built without it; make test runs it without the detector (PROCESS_TESTS)")
	}
}

// childProcessTest is for a test whose runs are all in programs it builds:
// it skips under the race detector (skipUnderRace); without it, the test
// runs beside the other such tests, since each mostly waits on its
// children (their run timeouts, their signals' graces, the real clock).
func childProcessTest(t *testing.T) {
	t.Helper()
	skipUnderRace(t)
	t.Parallel()
}
