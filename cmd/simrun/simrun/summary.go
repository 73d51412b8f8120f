package simrun

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/etcdsim/etcdsim/scenarios/results"
	"github.com/etcdsim/etcdsim/seed"
)

// exitCode is the exit code the summary calls for.
func exitCode(s *results.Summary) int {
	if s.Interrupted {
		return exitInterrupted
	}
	for _, o := range s.Runs {
		if !o.Met && !o.Retried {
			return exitMissed
		}
	}
	return exitOK
}

// table writes the summary as a table — MET 95% LOW is the lower bound of
// the 95% Wilson interval of the rate the expectation was met (see
// results.ScenarioSummary.MetLow), rounded down — then the runs that missed their
// expectation with the commands that replay them, and the harness
// failures with their errors and files. SCHEDULE counts the runs whose
// fault schedule did not run as written and HARNESS the runs without a
// verdict, both apart from the runs judged: MET and DETECTION are over the
// judged runs only.
func table(w io.Writer, s *results.Summary) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tEXPECT\tRUNS\tSEEDS\tMET\tMET 95% LOW\tDETECTION\tFIRST VIOLATION\tMEDIAN RUN\tSCHEDULE\tHARNESS\tVIOLATIONS")
	seedsOf := rowSeeds(s)
	for _, ss := range s.Scenarios {
		first := "-"
		if ss.Violated > 0 {
			first = ss.FirstViolation.D().Round(10 * time.Millisecond).String()
		}
		low := "-"
		if l, ok := ss.MetLow(); ok {
			low = fmt.Sprintf("%.0f%%", math.Floor(100*l))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d/%d\t%s\t%s\t%s\t%v\t%s\t%s\t%s\n", ss.Scenario, expectShort(ss.Expect), ss.Runs, seedsOf[ss.Scenario], ss.Met, ss.Judged(), low,
			ss.Detection(), first, ss.Median.D().Round(10*time.Millisecond), countOrDash(ss.ScheduleErrors), countOrDash(ss.Errors),
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
	if s.DetectionSeeds > 1 {
		fmt.Fprintf(w, "A scenario that expects a violation is found if one of up to %d seeds finds it (a run on the virtual clock is not repeatable to the interleaving: detection is a rate); one that expects a pass gets one seed, which must pass.\n", s.DetectionSeeds)
		for _, o := range s.Runs {
			if o.Retried {
				fmt.Fprintf(w, "retried: %s seed %s missed (%s); seed %s tried next\n", o.Label(), o.Seed, o.Why, o.Seed+1)
			}
		}
	}
	if n := scheduleErrors(s); n > 0 {
		fmt.Fprintf(w, "%d runs did not run their fault schedule as written: they are not counted as met or missed.\n", n)
	}
	if s.HarnessFailures > 0 {
		fmt.Fprintf(w, "%d runs have no verdict: their harness failed.\n", s.HarnessFailures)
	}
	if s.UnusableRecipes > 0 {
		fmt.Fprintf(w, "%d runs have no verdict: their recipe could not be used.\n", s.UnusableRecipes)
	}
	if s.Interrupted {
		fmt.Fprintf(w, "Interrupted: %d planned runs did not finish.\n", s.Planned-s.Finished())
	}
	for _, o := range s.Runs {
		if o.Interrupted {
			fmt.Fprintf(w, "interrupted: %s seed %s, in %s: %s\n", o.Label(), o.Seed, o.Dir, o.Why)
		}
	}
	for _, o := range s.Runs {
		if !o.Met && !o.Retried && !o.Interrupted && o.Error == "" && o.ScheduleErr == "" {
			fmt.Fprintf(w, "missed: %s seed %s: %s\n  replay: %s\n", o.Label(), o.Seed, o.Why, o.Replay)
		}
	}
	for _, o := range s.Runs {
		if o.Error == "" && o.ScheduleErr != "" {
			fmt.Fprintf(w, "schedule error: %s seed %s: %s\n  replay: %s\n", o.Label(), o.Seed, o.ScheduleErr, o.Replay)
		}
	}
	for _, o := range s.Runs {
		for _, f := range o.RecipeFaults {
			fmt.Fprintf(w, "recipe fault: %s seed %s: %s\n", o.Label(), o.Seed, f)
		}
		for _, f := range o.NotApplied {
			fmt.Fprintf(w, "fault not applied: %s seed %s: %s\n", o.Label(), o.Seed, f)
		}
	}
	for _, o := range s.Runs {
		switch {
		case o.Unusable:
			fmt.Fprintf(w, "recipe unusable: %s seed %s: %s\n", o.Label(), o.Seed, o.Error)
		case o.Error != "":
			fmt.Fprintf(w, "no verdict: %s seed %s: %s\n", o.Label(), o.Seed, o.Error)
		}
	}
}

// rowSeeds gives each row of the table (a scenario and variant) the seeds
// its runs had, in short: "1", "1,2", "101-120".
func rowSeeds(s *results.Summary) map[string]string {
	by := map[string][]seed.Seed{}
	for _, o := range s.Runs {
		by[o.Label()] = append(by[o.Label()], o.Seed)
	}
	out := map[string]string{}
	for l, ss := range by {
		out[l] = seedRanges(ss)
	}
	return out
}

// seedRanges writes seeds sorted, runs of consecutive ones as ranges:
// "1-3,7".
func seedRanges(ss []seed.Seed) string {
	ss = slices.Clone(ss)
	slices.Sort(ss)
	ss = slices.Compact(ss)
	var parts []string
	for i := 0; i < len(ss); {
		j := i
		for j+1 < len(ss) && ss[j+1] == ss[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, ss[i].String())
		case j == i+1:
			parts = append(parts, ss[i].String(), ss[j].String())
		default:
			parts = append(parts, ss[i].String()+"-"+ss[j].String())
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// scheduleErrors counts the runs whose fault schedule did not run as
// written.
func scheduleErrors(s *results.Summary) int {
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
