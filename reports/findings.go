package reports

import (
	"errors"
	"fmt"
	"html/template"
	"path/filepath"
	"time"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// FindingsPage is the findings page an exploration's directory gets
// beside findings.json and findings.md: what a user reads first.
const FindingsPage = "findings.html"

// findingsData is what templates/findings.html draws.
type findingsData struct {
	Rep       *scenarios.ExploreReport
	Mode      string
	Simulated time.Duration
	Elapsed   time.Duration
	Groups    []findingsGroup
	CSS       template.CSS
}

type findingsGroup struct {
	scenarios.FindingGroup
	N      int
	ID     string
	Href   string // the smallest failing run's page, relative to the findings page; "" when it has none
	NoPage string // why it has none
}

// RenderFindings renders the findings page of the exploration in dir
// (findings.html) from its findings.json, and the page of each group's
// smallest failing run, linked both ways. A group whose run cannot be
// rendered is listed without its link, and named in the returned error;
// the page is written all the same.
func RenderFindings(dir string) error {
	rep, err := scenarios.ReadExploreReport(dir)
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	d := findingsData{Rep: rep, Mode: "uniform", Simulated: rep.Simulated.D().Round(time.Second),
		Elapsed: rep.Elapsed.D().Round(time.Second), CSS: template.CSS(asset("style.css"))}
	if rep.Guided {
		d.Mode = "guided"
	}
	stamp := buildStamp()
	var errs []error
	for i, g := range rep.Groups {
		fg := findingsGroup{FindingGroup: g, N: i + 1, ID: fmt.Sprintf("group-%d", i+1)}
		switch href, err := renderGroupRun(abs, g.Page, stamp); {
		case g.Page == "":
			fg.NoPage = "no run of it was kept (the exploration had no directory, or shrank nothing)"
		case err != nil:
			fg.NoPage = err.Error()
			errs = append(errs, fmt.Errorf("reports: group %d (%s %s): %w", i+1, g.Judge, g.Kind, err))
		default:
			fg.Href = href
		}
		d.Groups = append(d.Groups, fg)
	}
	if err := writeTemplate(filepath.Join(dir, FindingsPage), "findings.html", d); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// renderGroupRun renders the page of the run whose result.json is page,
// found as scenarios.LocateExplorePage finds it, and returns its link
// relative to dir.
func renderGroupRun(dir, page, stamp string) (string, error) {
	if page == "" {
		return "", nil
	}
	p := scenarios.LocateExplorePage(dir, page)
	if p == "" {
		return "", fmt.Errorf("its run %s is not there", page)
	}
	runDir, err := filepath.Abs(filepath.Dir(p))
	if err != nil {
		return "", err
	}
	back, err := filepath.Rel(runDir, filepath.Join(dir, FindingsPage))
	if err != nil {
		return "", err
	}
	if !pageFresh(runDir, stamp) {
		r, err := results.ReadRun(runDir)
		if err != nil {
			return "", err
		}
		if err := writeRunPage(r, runDir, filepath.ToSlash(back), stamp); err != nil {
			return "", err
		}
	}
	href, err := filepath.Rel(dir, filepath.Join(runDir, runPageFile))
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(href), nil
}
