package reports

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

// Markdown renders the campaign for a CI job's summary page: the count
// of runs that met their expectation, a table of scenarios with detection
// rates, schedule errors and run times, the runs that missed with their
// violations and replay commands, apart from them the runs whose fault
// schedule did not run as written, the runs the interrupt stopped before
// their verdict (neither met nor missed: ⏸ when they are all that is
// left), and the runs that could not be loaded.
func Markdown(c *results.Dir) []byte {
	var b bytes.Buffer
	met := 0
	for _, r := range c.Runs {
		if r.Result.Met {
			met++
		}
	}
	mark := "✅"
	switch {
	case met < len(c.Runs) || len(c.Failed) > 0:
		mark = "❌"
	case len(c.Interrupted) > 0 || len(c.Runs) == 0:
		mark = "⏸"
	}
	fmt.Fprintf(&b, "## %s etcdsim: %d of %d runs met their expectation", mark, met, len(c.Runs))
	if n := len(c.Interrupted); n > 0 {
		fmt.Fprintf(&b, "; %d interrupted before their verdict", n)
	}
	b.WriteString("\n\n")
	if s := c.Summary; s != nil {
		fmt.Fprintf(&b, "simrun %s: %d runs planned", s.Command, s.Planned)
		if s.Interrupted {
			b.WriteString(", interrupted before all finished")
		}
		b.WriteString(".\n\n")
	}
	b.WriteString("| scenario | expected | met | detection | schedule errors | first violation p50 | run p50 | run p90 | run max |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range stats(c.Runs, nil) {
		first, sched := "-", "-"
		if s.Violated > 0 {
			first = round(s.FirstViolation).String()
		}
		if s.ScheduleErrors > 0 {
			sched = fmt.Sprint(s.ScheduleErrors)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %d/%d | %s | %s | %s | %v | %v | %v |\n", s.Label, mdEscape(s.Expect), s.Met, s.Judged(), s.Detection(), sched,
			first, round(s.P50), round(s.P90), round(s.Max))
	}
	var missed, unscheduled []*results.Run
	for _, r := range c.Runs {
		switch {
		case r.Result.ScheduleErr != "":
			unscheduled = append(unscheduled, r)
		case !r.Result.Met:
			missed = append(missed, r)
		}
	}
	if len(missed) > 0 {
		b.WriteString("\n### Missed\n\n")
		for _, r := range missed {
			res := r.Result
			fmt.Fprintf(&b, "- **%s** seed %s ([page](%s)): %s\n", r.Label(), res.Scenario.Seed, path.Join(r.Dir, runPageFile), mdEscape(res.Why))
			for _, v := range violationSentences(r) {
				fmt.Fprintf(&b, "  - %s\n", mdEscape(v))
			}
			fmt.Fprintf(&b, "  - replay: `%s`\n", res.Replay)
		}
	}
	if len(unscheduled) > 0 {
		b.WriteString("\n### Fault schedule did not run as written\n\n")
		for _, r := range unscheduled {
			res := r.Result
			fmt.Fprintf(&b, "- **%s** seed %s ([page](%s)): %s\n", r.Label(), res.Scenario.Seed, path.Join(r.Dir, runPageFile), mdEscape(res.ScheduleErr))
			fmt.Fprintf(&b, "  - replay: `%s`\n", res.Replay)
		}
	}
	if len(c.Interrupted) > 0 {
		b.WriteString("\n### Interrupted before their verdict\n\n")
		b.WriteString("simrun was stopped while these ran; they were neither met nor missed. Run the campaign into the same directory to finish them.\n\n")
		for _, f := range c.Interrupted {
			fmt.Fprintf(&b, "- `%s`: %s\n", f.Dir, mdEscape(f.Err.Error()))
		}
	}
	if len(c.Failed) > 0 {
		b.WriteString("\n### Could not be loaded\n\n")
		for _, f := range c.Failed {
			fmt.Fprintf(&b, "- `%s`: %s\n", f.Dir, mdEscape(f.Err.Error()))
		}
	}
	return b.Bytes()
}

// mdEscape keeps text from breaking a table or a list item.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}
