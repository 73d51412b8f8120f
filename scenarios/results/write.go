package results

import (
	"fmt"
	"path/filepath"

	"github.com/etcdsim/etcdsim/internal/runfile"
	"github.com/etcdsim/etcdsim/scenarios"
)

// Every file is written whole or not at all: into a temporary file beside
// it, then renamed (see internal/runfile, which scenarios.Run writes a
// run's files through too). A reader never sees half a file that simrun
// wrote; a truncated file was cut by something else.

// WriteSummary writes s as dir's summary.json, with this package's
// SummaryVersion.
func WriteSummary(dir string, s *Summary) error {
	s.Version = SummaryVersion
	if s.Runs == nil {
		s.Runs = []SummaryRun{}
	}
	if err := runfile.WriteJSON(filepath.Join(dir, SummaryFile), s); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// WriteScenario writes s to the scenario file at path (scenario.json in
// a run's directory, or wherever simrun shrink puts the scenario it
// found).
func WriteScenario(path string, s scenarios.Scenario) error {
	if err := runfile.WriteJSON(path, s); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// WriteRun writes r's result.json and history.json into dir, as
// scenarios.Run does with Options.Out: the history first, the result
// last.
func WriteRun(dir string, r *Run) error {
	if err := runfile.WriteRun(dir, r.Result, r.History); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}
