package simrun

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
	"github.com/etcdsim/etcdsim/seed"
)

// shrinkVersion is the version of shrink.json.
const shrinkVersion = 1

// shrinkRecord is what a shrink did, written as shrink.json in its output
// directory: the run it started from, the candidates it tried, and what
// it kept.
type shrinkRecord struct {
	Version int `json:"version"`
	// Input is the result.json shrunk.
	Input string `json:"input"`
	// Want is the violation every trial of a kept candidate found.
	Want checker.Expectation `json:"want"`
	// Seeds are each candidate's trials' seeds.
	Seeds []seed.Seed `json:"seeds"`
	// Original is the input's scenario; Start the same with its nemesis
	// written down as a timeline, the first candidate run.
	Original scenarios.Scenario `json:"original"`
	Start    scenarios.Scenario `json:"start"`
	// Shrunk is the smallest scenario that failed in every trial; absent
	// when Start did not.
	Shrunk *scenarios.Scenario `json:"shrunk,omitempty"`
	Tries  []tryRecord         `json:"tries"`
	// Runs counts the runs of every try.
	Runs        int                `json:"runs"`
	Elapsed     scenarios.Duration `json:"elapsed"`
	Interrupted bool               `json:"interrupted,omitempty"`
	// Error is what kept the shrunk scenario or its report from being
	// written.
	Error string `json:"error,omitempty"`
}

// writeRecord completes rec with the tries and writes shrink.json. A
// failure to write it is reported, and changes nothing found.
func (sh *shrinker) writeRecord(rec *shrinkRecord, err error) {
	rec.Tries = sh.tries
	if rec.Tries == nil {
		rec.Tries = []tryRecord{}
	}
	rec.Runs = 0
	for _, t := range sh.tries {
		rec.Runs += t.Ran
	}
	rec.Elapsed = durationOf(time.Since(sh.t0))
	if err != nil {
		rec.Error = err.Error()
	}
	b, merr := json.MarshalIndent(rec, "", "  ")
	if merr == nil {
		merr = os.WriteFile(filepath.Join(sh.out, "shrink.json"), append(b, '\n'), 0o644)
	}
	if merr != nil {
		fmt.Fprintf(sh.e.stderr, "simrun shrink: writing shrink.json: %v\n", merr)
	}
}

// summary writes the original and the shrunk schedule side by side, what
// the search cost, and where its files are.
func (sh *shrinker) summary(w io.Writer, orig, start, best scenarios.Scenario, f shrunkFiles) {
	fmt.Fprintf(w, "original: %s seed %s: %s\n", orig.Name, orig.Seed, shape(orig))
	for _, l := range orig.Faults.Lines() {
		fmt.Fprintf(w, "\t%s\n", l)
	}
	if orig.Faults.Nemesis != nil {
		fmt.Fprintf(w, "  as a timeline: %s\n", shape(start))
		for _, l := range start.Faults.Lines() {
			fmt.Fprintf(w, "\t%s\n", l)
		}
	}
	fmt.Fprintf(w, "shrunk:   %s\n", shape(best))
	for _, l := range best.Faults.Lines() {
		fmt.Fprintf(w, "\t%s\n", l)
	}
	fmt.Fprintf(w, "finds %v in %d of %d trials, %s\n", sh.want, len(sh.seeds), len(sh.seeds), seedList(sh.seeds))
	runs, kept := 0, 0
	for _, t := range sh.tries {
		runs += t.Ran
		if t.Kept {
			kept++
		}
	}
	fmt.Fprintf(w, "%d candidates tried (%d kept) in %d runs, %v\n", len(sh.tries), kept, runs, time.Since(sh.t0).Round(time.Second))
	if f.scenario != "" {
		fmt.Fprintf(w, "scenario: %s\n", f.scenario)
	}
	if f.run != "" {
		fmt.Fprintf(w, "run:      %s (%s runs it again)\n", f.run, sh.e.replayCommand(filepath.Join(f.run, results.ResultFile)))
	}
	if f.report != "" {
		fmt.Fprintf(w, "report:   %s\n", f.report)
	}
}

// shape says in a few words how big a scenario's run is.
func shape(s scenarios.Scenario) string {
	var faults string
	switch n := len(s.Faults.Lines()); {
	case s.Faults.Nemesis != nil:
		faults = "a nemesis"
		if n > 1 {
			faults = fmt.Sprintf("%s and %s", faults, plural(n-1, "fault"))
		}
	default:
		faults = plural(n, "fault")
	}
	return fmt.Sprintf("%s, %s, run %v", faults, plural(s.Workload.Clients, "client"), s.Workload.Duration)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
