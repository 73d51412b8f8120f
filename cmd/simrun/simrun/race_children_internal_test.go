package simrun

import (
	"testing"

	"github.com/etcdsim/etcdsim/internal/patience"
)

// childProcessTest is race_children_test.go's, for this package's
// internal tests: a test whose runs all go on in a simrun it builds skips
// under the race detector, and make test runs it without
// (PROCESS_TESTS), beside the others like it.
func childProcessTest(t *testing.T) {
	t.Helper()
	if patience.RaceEnabled {
		t.Skip("race detector on: its runs are in programs built without it; make test runs it without the detector (PROCESS_TESTS)")
	}
	t.Parallel()
}
