package simrun

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// summaryVersion is the version of summary.json.
const summaryVersion = 1

// Summary is what summary.json holds: every finished run and, per
// scenario, how they went.
type Summary struct {
	Version int `json:"version"`
	// Command is the command that wrote it: run, gallery, campaign, merge.
	Command string `json:"command"`
	// Campaign is the hash of a campaign's expanded run list, the same in
	// every shard of it; "" outside campaigns.
	Campaign string `json:"campaign,omitempty"`
	// CampaignRuns is how many runs the whole campaign has, every shard's.
	CampaignRuns int `json:"campaign_runs,omitempty"`
	// Shards are the shards this summary covers; empty outside campaigns.
	Shards []Shard `json:"shards,omitempty"`
	// Planned is how many runs were to be done; Runs holds those that
	// finished.
	Planned int                `json:"planned"`
	Started time.Time          `json:"started"`
	Elapsed scenarios.Duration `json:"elapsed"`
	// Interrupted says that a signal stopped simrun before every planned
	// run finished.
	Interrupted bool `json:"interrupted,omitempty"`
	// HarnessFailures counts the finished runs that have no verdict: the
	// harness failed, or the run's process crashed, hung past its
	// deadline or left no result. Each has its error in Runs.
	HarnessFailures int `json:"harness_failures"`
	// UnusableRecipes counts the finished runs that have no verdict
	// because their recipe could not be used: a constructor that returned
	// nil, panicked or blocked, a holder missing a method the workload
	// needs. Each has its error in Runs.
	UnusableRecipes int               `json:"unusable_recipes,omitempty"`
	Runs            []outcome         `json:"runs"`
	Scenarios       []ScenarioSummary `json:"scenarios"`
}

// ScenarioSummary is how the runs of one scenario (and variant) went.
type ScenarioSummary struct {
	Scenario string `json:"scenario"`
	Expect   string `json:"expect"`
	Runs     int    `json:"runs"`
	Met      int    `json:"met"`
	// Errors counts the runs without a verdict: harness failures and
	// recipes that could not be used.
	Errors int `json:"errors,omitempty"`
	// ScheduleErrors counts the runs whose fault schedule did not run as
	// written: judged, but not a test of what the scenario says, so they
	// are neither met nor counted in the detection.
	ScheduleErrors int `json:"schedule_errors,omitempty"`
	// Found counts the runs that found a violation, of any checker, with
	// their schedule run as written: for a scenario that expects a pass
	// — a user's recipe under the Safety constructors, say — the runs
	// that caught something.
	Found int `json:"found,omitempty"`
	// Violations counts the violations found, by checker.
	Violations map[string]int `json:"violations,omitempty"`
	// Violated counts the runs with a violation, and FirstViolation is
	// the median over them of when the first violation began.
	Violated       int                `json:"violated,omitempty"`
	FirstViolation scenarios.Duration `json:"first_violation,omitempty"`
	// Median is the median run time.
	Median scenarios.Duration `json:"median"`
}

// broken reports whether the scenario expects a violation.
func (ss ScenarioSummary) broken() bool { return ss.Expect != checker.Expectation{}.String() }

// judged is how many runs have a verdict on the schedule as written.
func (ss ScenarioSummary) judged() int { return ss.Runs - ss.Errors - ss.ScheduleErrors }

// detection is, over the judged runs, the share that found the violation
// a broken scenario expects, or the share that found any violation in a
// scenario that expects a pass ("found 100%"): "-" when there is nothing
// to say.
func (ss ScenarioSummary) detection() string {
	n := ss.judged()
	switch {
	case n <= 0:
		return "-"
	case ss.broken():
		return fmt.Sprintf("%.0f%%", 100*float64(ss.Met)/float64(n))
	case ss.Found > 0:
		return fmt.Sprintf("found %.0f%%", 100*float64(ss.Found)/float64(n))
	}
	return "-"
}

// aggregate fills s.Scenarios from s.Runs.
func (s *Summary) aggregate() {
	by := map[string][]outcome{}
	var order []string
	for _, o := range s.Runs {
		if _, ok := by[o.label()]; !ok {
			order = append(order, o.label())
		}
		by[o.label()] = append(by[o.label()], o)
	}
	s.Scenarios = nil
	s.HarnessFailures, s.UnusableRecipes = 0, 0
	for _, o := range s.Runs {
		switch {
		case o.Unusable:
			s.UnusableRecipes++
		case o.Error != "":
			s.HarnessFailures++
		}
	}
	for _, l := range order {
		runs := by[l]
		ss := ScenarioSummary{Scenario: l, Expect: runs[0].Expect, Runs: len(runs)}
		var ds, firsts []scenarios.Duration
		for _, o := range runs {
			if o.FirstViolation != nil {
				firsts = append(firsts, *o.FirstViolation)
			}
			if o.Met {
				ss.Met++
			}
			switch {
			case o.Error != "":
				ss.Errors++
			case o.ScheduleErr != "":
				ss.ScheduleErrors++
			case len(o.Violations) > 0:
				ss.Found++
			}
			for c, n := range o.Violations {
				if ss.Violations == nil {
					ss.Violations = map[string]int{}
				}
				ss.Violations[c] += n
			}
			ds = append(ds, o.Duration)
		}
		slices.Sort(ds)
		ss.Median = median(ds)
		ss.Violated, ss.FirstViolation = len(firsts), median(firsts)
		s.Scenarios = append(s.Scenarios, ss)
	}
}

// median is the middle of ds (the upper one of an even count), 0 for none.
func median(ds []scenarios.Duration) scenarios.Duration {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Sorted(slices.Values(ds))
	return ds[len(ds)/2]
}

// code is the exit code the summary calls for.
func (s *Summary) code() int {
	if s.Interrupted {
		return exitInterrupted
	}
	for _, o := range s.Runs {
		if !o.Met {
			return exitMissed
		}
	}
	return exitOK
}

// write writes summary.json into dir.
func (s *Summary) write(dir string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "summary.json"), append(b, '\n'), 0o644)
}

// readSummary reads a summary.json.
func readSummary(path string) (*Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Version > summaryVersion {
		return nil, fmt.Errorf("%s has version %d; this simrun reads up to %d", path, s.Version, summaryVersion)
	}
	return &s, nil
}

// table writes the summary as a table, then the runs that missed their
// expectation with the commands that replay them, and the harness
// failures with their errors and files. SCHEDULE counts the runs whose
// fault schedule did not run as written and HARNESS the runs without a
// verdict, both apart from the runs judged: MET and DETECTION are over the
// judged runs only.
func (s *Summary) table(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tEXPECT\tRUNS\tMET\tDETECTION\tFIRST VIOLATION\tMEDIAN RUN\tSCHEDULE\tHARNESS\tVIOLATIONS")
	for _, ss := range s.Scenarios {
		first := "-"
		if ss.Violated > 0 {
			first = ss.FirstViolation.D().Round(10 * time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d/%d\t%s\t%s\t%v\t%s\t%s\t%s\n", ss.Scenario, expectShort(ss.Expect), ss.Runs, ss.Met, ss.judged(),
			ss.detection(), first, ss.Median.D().Round(10*time.Millisecond), countOrDash(ss.ScheduleErrors), countOrDash(ss.Errors),
			countsText(ss.Violations))
	}
	tw.Flush() //nolint:errcheck // reported by the writer's owner
	met := 0
	for _, o := range s.Runs {
		if o.Met {
			met++
		}
	}
	fmt.Fprintf(w, "\n%d of %d runs met their expectation (%d planned) in %v.\n", met, len(s.Runs), s.Planned, s.Elapsed.D().Round(time.Second/10))
	if n := s.scheduleErrors(); n > 0 {
		fmt.Fprintf(w, "%d runs did not run their fault schedule as written: they are not counted as met or missed.\n", n)
	}
	if s.HarnessFailures > 0 {
		fmt.Fprintf(w, "%d runs have no verdict: their harness failed.\n", s.HarnessFailures)
	}
	if s.UnusableRecipes > 0 {
		fmt.Fprintf(w, "%d runs have no verdict: their recipe could not be used.\n", s.UnusableRecipes)
	}
	if s.Interrupted {
		fmt.Fprintf(w, "Interrupted: %d planned runs did not finish.\n", s.Planned-len(s.Runs))
	}
	for _, o := range s.Runs {
		if !o.Met && o.Error == "" && o.ScheduleErr == "" {
			fmt.Fprintf(w, "missed: %s seed %s: %s\n  replay: %s\n", o.label(), o.Seed, o.Why, o.Replay)
		}
	}
	for _, o := range s.Runs {
		if o.Error == "" && o.ScheduleErr != "" {
			fmt.Fprintf(w, "schedule error: %s seed %s: %s\n  replay: %s\n", o.label(), o.Seed, o.ScheduleErr, o.Replay)
		}
	}
	for _, o := range s.Runs {
		switch {
		case o.Unusable:
			fmt.Fprintf(w, "recipe unusable: %s seed %s: %s\n", o.label(), o.Seed, o.Error)
		case o.Error != "":
			fmt.Fprintf(w, "no verdict: %s seed %s: %s\n", o.label(), o.Seed, o.Error)
		}
	}
}

// scheduleErrors counts the runs whose fault schedule did not run as
// written.
func (s *Summary) scheduleErrors() int {
	n := 0
	for _, o := range s.Runs {
		if o.Error == "" && o.ScheduleErr != "" {
			n++
		}
	}
	return n
}

// countOrDash is n in a table cell, "-" for none.
func countOrDash(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// expectShort is an expectation in a table cell: "pass", or the
// violation and its checker in brief, "overlap (mutual-exclusion)".
func expectShort(e string) string {
	if rest, ok := strings.CutPrefix(e, "violation of "); ok {
		if c, v, ok := strings.Cut(rest, " ("); ok {
			return strings.TrimSuffix(v, ")") + " (" + c + ")"
		}
	}
	return e
}

// countsText renders counts by name: "fencing:2 mutual-exclusion:1", or "-".
func countsText(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := slices.Collect(maps.Keys(m))
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s:%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}
