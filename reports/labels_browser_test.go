package reports_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/reports"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// faultExamples is a fault of every action faults.Parse reads, in its
// text form, with the targets such a fault resolves to.
var faultExamples = map[string]struct {
	text    string
	targets []string
}{
	"compact":           {"compact", nil},
	"crash":             {"crash(lock-holder L)", []string{"c2"}},
	"cut":               {"cut(leader → minority)", []string{"m0", "m2"}},
	"defrag":            {"defrag(all-members)", []string{"m0", "m1", "m2"}},
	"delete":            {"delete(prefix:/locks/L)", nil},
	"delay":             {"delay(all-clients, 20ms±5ms)", []string{"c1", "c2", "c3", "c4", "c5"}},
	"expire-token":      {"expire-token(all-clients)", []string{"c1", "c2", "c3", "c4", "c5"}},
	"flap":              {"flap(isolate(leader), down 200ms, up 300ms, ×3)", []string{"m1"}},
	"freeze":            {"freeze(pinned c1)", []string{"m2"}},
	"isolate":           {"isolate(client c1)", []string{"c1"}},
	"kill":              {"kill(leader)", []string{"m1"}},
	"leader-kill-storm": {"leader-kill-storm(every 300ms)", []string{"m0", "m1", "m2"}},
	"leader-storm":      {"leader-storm(every 200ms)", []string{"m0", "m1", "m2"}},
	"lose-responses":    {"lose-responses(client c3)", []string{"c3"}},
	"partition":         {"partition(minority)", []string{"m2"}},
	"pause":             {"pause(lock-holder L)", []string{"c4"}},
	"replace":           {"replace(follower)", []string{"m2"}},
	"reset":             {"reset(all-clients)", []string{"c1", "c2", "c3", "c4", "c5"}},
	"revoke-lease":      {"revoke-lease(lock-holder L)", []string{"c5"}},
	"put":               {"put(key:/locks/L, stolen)", nil},
	"ring":              {"ring", []string{"m0", "m1", "m2", "m3", "m4"}},
	"stop":              {"stop(follower)", []string{"m0"}},
}

// writeCrowdedRun writes a run of d into dir whose history has faults of
// every action, each several times and close together — the way a
// schedule that ends every token each 1.5 s, or a trigger on every
// acquire, crowds the timeline — some overlapping, one never healed and
// one that failed; and leadership that changes every 150 ms for a while.
func writeCrowdedRun(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	const run = "crowded#1"
	h := checker.History{Meta: checker.Meta{RunID: run, Seed: 1, Scenario: "lock/crowded/every-fault"}, End: d}
	op := func(client string, kind checker.Kind, call, ret time.Duration, out checker.Output) {
		h.Ops = append(h.Ops, checker.Operation{ID: len(h.Ops), Run: run, Client: client, Kind: kind, Key: "L", Call: call, Return: ret, Outcome: checker.OutcomeOK, Output: out})
	}
	for i := 0; time.Duration(i)*300*time.Millisecond < d; i++ {
		at := time.Duration(i) * 300 * time.Millisecond
		op(fmt.Sprintf("c%d", 1+i%5), checker.KindAcquire, at, at+40*time.Millisecond, checker.Output{Token: int64(i + 1)})
		op(fmt.Sprintf("c%d", 1+i%5), checker.KindRelease, at+200*time.Millisecond, at+210*time.Millisecond, checker.Output{})
	}
	for i := 0; i < 12; i++ { // a leader storm: a change every 150ms
		at := 2*time.Second + time.Duration(i)*150*time.Millisecond
		op(scenarios.LeaderClient, scenarios.KindLeader, at, at, checker.Output{Value: fmt.Sprintf("m%d", i%3)})
	}
	var actions []string
	for _, a := range faults.Actions() {
		if _, ok := faultExamples[a]; !ok {
			t.Fatalf("faultExamples has no example of %s: add one, so that its label is drawn here", a)
		}
		actions = append(actions, a)
	}
	at := 500 * time.Millisecond
	for i, a := range actions {
		ex := faultExamples[a]
		f, err := faults.Parse(ex.text)
		if err != nil {
			t.Fatalf("%s: %v", ex.text, err)
		}
		for k := range 3 {
			start := at + time.Duration(k)*time.Duration(400+100*(i%3))*time.Millisecond
			ev := checker.FaultEvent{ID: len(h.Faults) + 1, Name: f.String(), Action: a, Targets: ex.targets, Start: start, End: start, Healed: true}
			if !f.Instant() {
				ev.End = start + time.Duration(300+200*k)*time.Millisecond
			}
			h.Faults = append(h.Faults, ev)
		}
		at += d / time.Duration(len(actions)+2)
	}
	h.Faults[4].Healed = false
	h.Faults[7].Err = "the heal failed: member m1 did not start"
	res := scenarios.Result{
		Version: scenarios.SchemaVersion,
		Scenario: scenarios.Scenario{Version: 1, Name: "lock/crowded/every-fault", Seed: 1,
			Cluster:  scenarios.Cluster{Members: 5},
			Workload: scenarios.Workload{Family: "lock", Recipe: "crowded", Clients: 5, Duration: scenarios.Duration(d)}},
		Checks:  []checker.Result{{Checker: checker.CheckerMutualExclusion, Verdict: checker.VerdictOK, Summary: "synthetic"}},
		Verdict: checker.VerdictOK, Met: true, Why: "all checks ok", Ops: len(h.Ops), Faults: h.Faults,
		Replay: "simrun replay crowded",
	}
	if err := results.WriteRun(dir, &results.Run{Result: &res, History: h}); err != nil {
		t.Fatal(err)
	}
}

// overlapsJS returns, for the page open, every pair of shown labels of
// the timeline (fault labels, leader labels, axis labels) whose boxes
// overlap, and every legend whose box overlaps a drawing (the timeline,
// the latency plot), as sentences.
const overlapsJS = `(() => {
  const shown = el => el.getBoundingClientRect().width > 0 && getComputedStyle(el).display !== 'none';
  const box = el => el.getBoundingClientRect();
  const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const out = [];
  const labels = [...document.querySelectorAll('#tl .band-labels text, #tl .lead-labels text, #tl .axis text')].filter(shown);
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) {
      if (hit(box(labels[i]), box(labels[j]))) {
        out.push('label "' + labels[i].textContent + '" overlaps label "' + labels[j].textContent + '"');
      }
    }
  }
  // The latency plot draws its axes' labels and numbers; a legend drawn
  // inside it would cover its points.
  for (const t of document.querySelectorAll('.plot svg text')) {
    const s = t.textContent.trim();
    if (!/^[0-9.]+$/.test(s) && s !== 'call (s)' && s !== 'latency (ms)') {
      out.push('the latency plot draws "' + s + '" over its points: a legend inside the plot');
    }
  }
  if (document.querySelector('.plot svg') && !document.querySelector('.plot-legend')) {
    out.push('the latency plot has no legend beside it');
  }
  const drawings = [...document.querySelectorAll('#tl, .plot svg')];
  for (const l of document.querySelectorAll('.legend')) {
    for (const d of drawings) {
      if (hit(box(l), box(d))) {
        out.push('legend "' + l.textContent.slice(0, 40) + '…" overlaps ' + (d.id ? '#' + d.id : 'the latency plot'));
      }
    }
  }
  return out;
})()`

// TestFaultLabelsInBrowser renders the page of a run crowded with faults
// of every action and opens it in headless Chromium: at the first scale
// every fault label is shown and none overlaps another or a leader or
// axis label; zoomed out and fitted to the window, the labels shown still
// do not overlap; no legend covers the timeline or the latency plot. The
// screenshots are logged.
func TestFaultLabelsInBrowser(t *testing.T) {
	for _, d := range []time.Duration{12 * time.Second, 60 * time.Second} {
		t.Run(d.String(), func(t *testing.T) {
			dir := t.TempDir()
			writeCrowdedRun(t, dir, d)
			if err := reports.RenderRun(dir); err != nil {
				t.Fatal(err)
			}
			b := newBrowser(t)
			b.open(t, filepath.Join(dir, "report.html"))
			bands := evaluate[int](t, b, `document.querySelectorAll('#tl .band-labels text').length`)
			if want := 3 * len(faults.Actions()); bands != want {
				t.Fatalf("%d fault labels on the page, want %d", bands, want)
			}
			if hidden := evaluate[[]string](t, b, `[...document.querySelectorAll('#tl .band-labels text.crowded')].map(t => t.textContent)`); len(hidden) > 0 {
				t.Errorf("at the first scale, %d fault labels are hidden for want of room, want none: %q", len(hidden), hidden)
			}
			for _, o := range evaluate[[]string](t, b, overlapsJS) {
				t.Errorf("at the first scale: %s", o)
			}
			b.check(t, "report.html")
			b.screenshot(t, "crowded-"+d.String()+".png")
			b.elementShot(t, ".tl", "crowded-"+d.String()+"-timeline.png")
			for _, zoom := range []string{"0.5", "0.5", "fit", "2"} {
				evaluate[bool](t, b, `document.querySelector('[data-zoom="`+zoom+`"]').click(), true`)
				for _, o := range evaluate[[]string](t, b, overlapsJS) {
					t.Errorf("after zoom %s: %s", zoom, o)
				}
			}
			b.elementShot(t, ".tl", "crowded-"+d.String()+"-timeline-zoomed.png")
			b.check(t, "report.html")
		})
	}
}

// elementShot saves a screenshot of the first element sel selects, as
// screenshot saves the page's, and logs where.
func (b *browser) elementShot(t *testing.T, sel, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", sel, err)
	}
	p := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of %s: %s", sel, p)
}
