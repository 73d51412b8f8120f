package reports

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

//go:embed templates/*.html assets/*
var assets embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"odd":  func(i int) bool { return i%2 == 1 },
	"add":  func(a, b float64) float64 { return a + b },
	"secs": secs,
	"pct":  func(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + "%" },
}).ParseFS(assets, "templates/*.html"))

func asset(name string) string {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(b)
}

// runPage is what templates/run.html draws.
type runPage struct {
	Label, Seed, Description   string
	Family, Recipe             string
	Members, Clients           int
	Durable                    bool
	Clock                      string // the run's clock: "virtual" or "real"
	Expect                     string
	Met                        bool
	Why, Verdict               string
	Timings                    scenarios.Timings
	Ops                        int
	Faults                     []checker.FaultEvent
	ScheduleErr, Replay, Index string
	Stamp                      string // the build that drew the page (buildStamp)
	Violations                 []pageViolation
	Timeline                   *timeline
	Plot                       template.HTML
	PlotLegend                 []legendEntry
	PlotCaption                string
	Checks                     []pageCheck
	CSS                        template.CSS
	JS                         template.JS
}

type pageViolation struct {
	Checker checker.Name
	Kind    checker.ViolationKind
	Message string
	First   string // the first operation's ID, "" if none
	Ops     []checker.Operation
}

type pageCheck struct {
	checker.Result
	Metrics       []metric
	Distributions []namedDist
	Dropped       int
	Porcupine     string // the sibling file with porcupine's visualization
	PorcupineErr  string
}

type metric struct {
	Name  string
	Value string
}

type namedDist struct {
	Name string
	D    checker.Distribution
}

// porcupineFile names the sibling file with porcupine's visualization of
// a check.
func porcupineFile(name checker.Name) string { return "porcupine-" + string(name) + ".html" }

// writeRunPage renders r's page into its directory dir, with porcupine's
// visualizations beside it. index is the campaign page relative to dir,
// "" for none.
func writeRunPage(r *results.Run, dir, index, stamp string) error {
	res := r.Result
	s := res.Scenario
	violated := map[int]bool{}
	var vs []pageViolation
	for _, c := range flatten(res.Checks) {
		list := c.Violations
		if c.Invalid != nil {
			list = append(slices.Clip(list), *c.Invalid)
		}
		for _, v := range list {
			pv := pageViolation{Checker: c.Checker, Kind: v.Kind, Message: v.Message, Ops: v.Ops}
			for i, op := range v.Ops {
				violated[op.ID] = true
				if i == 0 {
					pv.First = strconv.Itoa(op.ID)
				}
			}
			vs = append(vs, pv)
		}
	}
	p := runPage{
		Label: r.Label(), Seed: s.Seed.String(), Description: s.Description,
		Family: s.Workload.Family, Recipe: s.Workload.Recipe,
		Members: s.Cluster.Members, Clients: len(clientsOf(&r.History)), Durable: s.Cluster.Durable,
		Clock:  s.Cluster.Clock.String(),
		Expect: s.Expect.String(), Met: res.Met, Why: res.Why, Verdict: res.Verdict.String(),
		Timings: res.Timings, Ops: res.Ops, Faults: r.History.Faults,
		ScheduleErr: res.ScheduleErr, Replay: res.Replay, Index: index, Stamp: stamp,
		Violations: vs,
		Timeline:   buildTimeline(&r.History, violated),
		CSS:        template.CSS(asset("style.css")),
		JS:         template.JS(asset("timeline.js")),
	}
	if p.Recipe == "" {
		p.Recipe = "-"
	}
	fig, err := latencyPlot(&r.History)
	if err != nil {
		return err
	}
	p.Plot, p.PlotLegend, p.PlotCaption = template.HTML(fig.SVG), fig.Legend, fig.Caption // drawn by gonum's vgsvg, not from input text
	for _, c := range res.Checks {
		pc := pageCheck{Result: c}
		for _, k := range slices.Sorted(maps.Keys(c.Metrics)) {
			pc.Metrics = append(pc.Metrics, metric{k, strconv.FormatFloat(c.Metrics[k], 'f', -1, 64)})
		}
		for _, k := range slices.Sorted(maps.Keys(c.Distributions)) {
			pc.Distributions = append(pc.Distributions, namedDist{k, c.Distributions[k]})
		}
		pc.Dropped = max(int(c.Metrics["violations"])-len(c.Violations), 0)
		if lin, ok := (scenarios.Check{Name: c.Checker}).Linearizability(r.History, checker.LinOptions{Timeout: 10 * time.Second}); ok {
			name := porcupineFile(c.Checker)
			if err := lin.VisualizePath(filepath.Join(dir, name)); err != nil {
				pc.PorcupineErr = err.Error()
			} else {
				pc.Porcupine = name
			}
		}
		p.Checks = append(p.Checks, pc)
	}
	return writeTemplate(filepath.Join(dir, runPageFile), "run.html", p)
}

// writeTemplate renders the named template into the file at path.
func writeTemplate(path, name string, data any) error {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		return fmt.Errorf("reports: rendering %s: %w", path, err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

// RenderRun renders the page of the run in dir (report.html), with
// porcupine's visualization of each linearizability check beside it.
func RenderRun(dir string) error {
	r, err := results.ReadRun(dir)
	if err != nil {
		return err
	}
	return writeRunPage(r, dir, "", buildStamp())
}
