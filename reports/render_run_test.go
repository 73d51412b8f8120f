package reports_test

import (
	"testing"

	"github.com/etcdsim/etcdsim/reports"
)

const goodRun = "testdata/results/lock-shared-session-healthy/seed-1"

// A run directory alone renders to its page; package results tests how
// each of its files is read, and refused.
func TestRenderRun(t *testing.T) {
	if err := reports.RenderRun(copyDir(t, goodRun)); err != nil {
		t.Errorf("RenderRun: %v", err)
	}
}
