package reports_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/etcdsim/etcdsim/reports"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// browser is a headless Chromium that records every console error,
// uncaught exception and request that leaves the page's own file.
type browser struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex // guards problems
	problems []string
}

// newBrowser starts a headless Chromium, or skips the test without one.
func newBrowser(tb testing.TB) *browser {
	tb.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		tb.Skip("no chromium, chromium-browser or google-chrome on PATH: the pages are not opened in a browser")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1400, 1000))
	// Chromium now and then exits before it listens when the machine is
	// busy ("chrome failed to start", once in a make test beside the race
	// packages): the browser is the test's instrument, not what it tests,
	// so a start that fails is tried again, twice, and said in the log.
	var err error
	for try := 1; try <= 3; try++ {
		actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
		b := &browser{}
		ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(b.listen))
		b.ctx = ctx
		b.cancel = func() { cancel(); acancel() }
		if err = chromedp.Do(ctx); err == nil {
			tb.Cleanup(b.cancel)
			return b
		}
		b.cancel()
		tb.Logf("starting %s, try %d of 3: %v", path, try, err)
	}
	tb.Fatalf("starting %s: %v", path, err)
	return nil
}

func (b *browser) listen(ev any) {
	var p string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value))
			}
			p = "console error: " + strings.Join(args, " ")
		}
	case *runtime.EventExceptionThrown:
		p = "uncaught exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			p += " " + ev.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError {
			p = "browser error: " + ev.Entry.Text + " " + ev.Entry.URL
		}
	case *network.EventRequestWillBeSent:
		if u := ev.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
			p = "request leaving the page: " + u
		}
	}
	if p != "" {
		b.mu.Lock()
		b.problems = append(b.problems, p)
		b.mu.Unlock()
	}
}

// open loads the file at path and returns what went wrong so far.
func (b *browser) open(tb testing.TB, path string) {
	tb.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := chromedp.Do(b.ctx, chromedp.Navigate("file://"+abs)); err != nil {
		tb.Fatalf("opening %s: %v", path, err)
	}
}

// check fails tb with every problem seen since the last check.
func (b *browser) check(tb testing.TB, page string) {
	tb.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		tb.Errorf("%s: %s", page, p)
	}
	b.problems = nil
}

func evaluate[T any](tb testing.TB, b *browser, js string) T {
	tb.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		tb.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	p := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// TestPagesInBrowser opens the run pages and the campaign page in a real
// headless Chromium: no console error, no exception, no request leaving
// the file; a timeline row per client and a band per fault; every link
// to an operation lands on one.
func TestPagesInBrowser(t *testing.T) {
	dir := copyDir(t, "testdata/results")
	reports.RenderDir(dir) //nolint:errcheck // the broken run is expected; TestRenderDirGolden checks the error
	b := newBrowser(t)
	for _, run := range []string{"lock-mutex-leader-kill/seed-1", "lock-shared-session-healthy/seed-1"} {
		t.Run(run, func(t *testing.T) {
			r, err := results.ReadRun(filepath.Join(dir, run))
			if err != nil {
				t.Fatal(err)
			}
			b.open(t, filepath.Join(dir, run, "report.html"))
			clients := map[string]bool{}
			for _, op := range r.History.Ops {
				if op.Kind != scenarios.KindLeader {
					clients[op.Client] = true
				}
			}
			if got := evaluate[int](t, b, `document.querySelectorAll('#tl .row').length`); got != len(clients)+1 {
				t.Errorf("timeline has %d rows, want one per client plus the members row: %d", got, len(clients)+1)
			}
			if got := evaluate[string](t, b, `document.querySelector('#tl .row').dataset.client`); got != "members" {
				t.Errorf("the timeline's first row is %q, want members", got)
			}
			kills := 0
			for _, f := range r.History.Faults {
				if strings.HasPrefix(f.Name, "kill(") {
					kills++
				}
			}
			if got := evaluate[int](t, b, `document.querySelectorAll('#tl .row.members .member-down').length`); got != kills {
				t.Errorf("the members row has %d kill marks, want one per kill: %d", got, kills)
			}
			if got := evaluate[int](t, b, `document.querySelectorAll('#tl .band').length`); got != len(r.History.Faults) {
				t.Errorf("timeline has %d fault bands, want one per fault: %d", got, len(r.History.Faults))
			}
			dangling := evaluate[[]string](t, b, `[...document.querySelectorAll('a[href^="#op-"]')].map(a => a.getAttribute('href')).filter(h => !document.getElementById(h.slice(1)))`)
			if len(dangling) > 0 {
				t.Errorf("links to operations not on the page: %v", dangling)
			}
			if n := evaluate[int](t, b, `document.querySelectorAll('#tl .viol').length`); (r.Result.Verdict.String() == "violation") != (n > 0) {
				t.Errorf("%d operations highlighted for a run whose verdict is %s", n, r.Result.Verdict)
			}
			// Zooming in must widen the drawing, not clip it.
			w0 := evaluate[float64](t, b, `document.getElementById('tl').getBoundingClientRect().width`)
			evaluate[bool](t, b, `document.querySelector('[data-zoom="2"]').click(), true`)
			if w1 := evaluate[float64](t, b, `document.getElementById('tl').getBoundingClientRect().width`); w1 < 1.9*w0 {
				t.Errorf("zooming in took the timeline from %.0f to %.0f px wide", w0, w1)
			}
			b.check(t, run)
			b.screenshot(t, strings.ReplaceAll(run, "/", "_")+".png")
		})
	}
	t.Run("campaign", func(t *testing.T) {
		b.open(t, filepath.Join(dir, "index.html"))
		if got := evaluate[int](t, b, `document.querySelectorAll('.matrix a.cell').length`); got != 3 {
			t.Errorf("the matrix has %d runs, want 3", got)
		}
		if got := evaluate[string](t, b, `document.getElementById('failed').textContent`); !strings.Contains(got, "seed-99") {
			t.Errorf("the list of runs that failed to load says %q, want seed-99 in it", got)
		}
		b.check(t, "index.html")
		b.screenshot(t, "campaign.png")
	})
}

// BenchmarkLongRunPage renders the page of a synthetic 10-minute run of
// 10 clients and opens it in the browser: the page's size in MB and the
// seconds it takes to load.
func BenchmarkLongRunPage(b *testing.B) {
	dir := b.TempDir()
	writeLongRun(b, dir, 10*time.Minute, 10)
	br := newBrowser(b)
	var size int64
	var open time.Duration
	for b.Loop() {
		if err := reports.RenderRun(dir); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, "report.html"))
		if err != nil {
			b.Fatal(err)
		}
		size = fi.Size()
		t0 := time.Now()
		br.open(b, filepath.Join(dir, "report.html"))
		open = time.Since(t0)
	}
	b.ReportMetric(float64(size)/1e6, "page-MB")
	b.ReportMetric(open.Seconds(), "open-s")
	br.mu.Lock()
	defer br.mu.Unlock()
	if len(br.problems) > 0 {
		b.Errorf("browser: %s", fmt.Sprint(br.problems))
	}
}

// TestFindingsPageInBrowser opens an exploration's findings page in a real
// headless Chromium: no console error, no request leaving the file; a
// section per group, and each group's link opens its run's page, which
// links back.
func TestFindingsPageInBrowser(t *testing.T) {
	dir := copyDir(t, "testdata/findings")
	if err := reports.RenderFindings(dir); err != nil {
		t.Fatal(err)
	}
	rep, err := scenarios.ReadExploreReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	b.open(t, filepath.Join(dir, reports.FindingsPage))
	if got := evaluate[int](t, b, `document.querySelectorAll('section.finding').length`); got != len(rep.Groups) {
		t.Errorf("%d finding sections, want %d", got, len(rep.Groups))
	}
	if got := evaluate[int](t, b, `document.querySelectorAll('ol.toc a').length`); got != len(rep.Groups) {
		t.Errorf("%d entries in the list of ways, want %d", got, len(rep.Groups))
	}
	hrefs := evaluate[[]string](t, b, `[...document.querySelectorAll('a.page')].map(a => a.href)`)
	b.check(t, reports.FindingsPage)
	b.screenshot(t, "findings.png")
	if len(hrefs) != len(rep.Groups) {
		t.Fatalf("%d links to run pages, want %d", len(hrefs), len(rep.Groups))
	}
	for _, h := range hrefs {
		if err := chromedp.Do(b.ctx, chromedp.Navigate(h)); err != nil {
			t.Fatalf("opening %s: %v", h, err)
		}
		if n := evaluate[int](t, b, `document.querySelectorAll('#tl .viol').length`); n == 0 {
			t.Errorf("%s highlights no operation of its violation", h)
		}
		back := evaluate[string](t, b, `document.querySelector('a[href$="findings.html"]')?.href ?? ""`)
		if !strings.HasSuffix(back, "/"+reports.FindingsPage) {
			t.Errorf("%s links back to %q, want the findings page", h, back)
		}
		b.check(t, h)
	}
}
