package reports

import (
	"errors"
	"fmt"
	"html/template"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// The files RenderDir writes into a results directory.
const (
	campaignPage = "index.html"
	junitFile    = "junit.xml"
	markdownFile = "summary.md"
)

// RenderDir renders every page of the results directory dir from its
// JSON: each run's page, the campaign page (index.html), junit.xml and
// summary.md. A run's page is drawn again only when it is out of date: it
// is missing, older than the run's result.json or history.json, or drawn
// by another build of etcdsim; so rendering a campaign resumed, or
// interrupted, draws only the pages of the runs that changed. Runs are
// read one at a time and their histories dropped once drawn, so a
// directory of many runs is never held whole. A run that does not load is
// listed on the campaign page and in the returned error, which names every
// such run; the others are rendered all the same.
func RenderDir(dir string) error {
	stamp := buildStamp()
	lats := map[*results.Run][]time.Duration{}
	c, err := results.ReadDirEach(dir, func(r *results.Run) error {
		rd := filepath.Join(dir, filepath.FromSlash(r.Dir))
		if !pageFresh(rd, stamp) {
			back := strings.Repeat("../", strings.Count(r.Dir, "/")+1) + campaignPage
			// An error draws the run as a failed one: it has no page to link to.
			if err := writeRunPage(r, rd, back, stamp); err != nil {
				return err
			}
		}
		lats[r], r.History = latencies(&r.History), checker.History{}
		return nil
	})
	if err != nil {
		return err
	}
	var errs []error
	if err := writeTemplate(filepath.Join(dir, campaignPage), "campaign.html", newCampaignPage(c, lats)); err != nil {
		errs = append(errs, err)
	}
	if err := writeFile(filepath.Join(dir, junitFile), JUnit(c)); err != nil {
		errs = append(errs, err)
	}
	if err := writeFile(filepath.Join(dir, markdownFile), Markdown(c)); err != nil {
		errs = append(errs, err)
	}
	if len(c.Failed) > 0 {
		errs = append(errs, fmt.Errorf("reports: %d runs in %s could not be rendered:\n%w", len(c.Failed), dir, c.Err()))
	}
	return errors.Join(errs...)
}

// campaignPage is what templates/campaign.html draws.
type campaignData struct {
	Summary       *results.Summary
	Met, Total    int
	P50, P90, Max time.Duration
	Scenarios     []campaignRow
	Missed        []runCell
	Unscheduled   []runCell // runs whose fault schedule did not run as written
	Failed        []results.RunError
	Interrupted   []results.RunError // runs the interrupt stopped before their verdict
	CSS           template.CSS
}

type campaignRow struct {
	scenarioStats
	Cells []runCell
}

type runCell struct {
	ID, Label, Seed, Verdict string
	Met                      bool
	Href, Title, Why, Replay string
}

func newCampaignPage(c *results.Dir, lats map[*results.Run][]time.Duration) campaignData {
	d := campaignData{Summary: c.Summary, Total: len(c.Runs), Failed: c.Failed, Interrupted: c.Interrupted, CSS: template.CSS(asset("style.css"))}
	var all []time.Duration
	for _, s := range stats(c.Runs, lats) {
		row := campaignRow{scenarioStats: s}
		row.P50, row.P90, row.Max = round(s.P50), round(s.P90), round(s.Max)
		row.FirstViolation = round(s.FirstViolation)
		row.OpP50, row.OpP90, row.OpP99 = s.OpP50.Round(time.Millisecond/10), s.OpP90.Round(time.Millisecond/10), s.OpP99.Round(time.Millisecond/10)
		for _, r := range s.Runs {
			res := r.Result
			cell := runCell{
				ID: strings.NewReplacer("/", "-", "[", "-", "]", "").Replace(r.Dir), Label: r.Label(), Seed: res.Scenario.Seed.String(),
				Verdict: res.Verdict.String(), Met: res.Met, Href: path.Join(r.Dir, runPageFile),
				Title: fmt.Sprintf("seed %s: %s; %s", res.Scenario.Seed, res.Verdict, res.Why), Why: res.Why, Replay: res.Replay,
			}
			row.Cells = append(row.Cells, cell)
			switch {
			case res.Met:
				d.Met++
			case res.ScheduleErr != "":
				cell.Why = "the fault schedule did not run as written: " + res.ScheduleErr
				d.Unscheduled = append(d.Unscheduled, cell)
			default:
				d.Missed = append(d.Missed, cell)
			}
			all = append(all, res.Timings.Total.D())
		}
		d.Scenarios = append(d.Scenarios, row)
	}
	p50, p90, mx := percentiles(all)
	d.P50, d.P90, d.Max = round(p50), round(p90), round(mx)
	return d
}
