package simrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

func TestShrinkBadInput(t *testing.T) {
	dir := t.TempDir()
	passed := filepath.Join(dir, "passed", "result.json")
	writeResultJSON(t, passed, &scenarios.Result{
		Version:  scenarios.SchemaVersion,
		Scenario: scenarios.Scenario{Name: "lock/mutex/healthy", Workload: scenarios.Workload{Family: scenarios.FamilyLock, Recipe: "mutex"}, Seed: 1},
		Checks:   []checker.Result{{Checker: checker.CheckerMutualExclusion, Verdict: checker.VerdictOK, Summary: "40 holds of 1 lock"}},
		Verdict:  checker.VerdictOK,
		Met:      true,
	})
	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"no result", []string{"shrink"}, []string{"name one result.json (got 0 arguments)", "usage: simrun shrink"}},
		{"two results", []string{"shrink", passed, passed}, []string{"got 2 arguments"}},
		{"no trials", []string{"shrink", "-trials", "0", passed}, []string{"-trials 0: want at least 1"}},
		{"missing file", []string{"shrink", filepath.Join(dir, "nope.json")}, []string{"nope.json"}},
		{"not a result", []string{"shrink", writeText(t, dir, "bad.json", `{"scenario": {}, "extra": 1}`)}, []string{"unknown field", "extra"}},
		{"no violation", []string{"shrink", passed}, []string{"found no violation", "there is no failure to shrink"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := simrunRun(t, tt.args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2; stderr:\n%s", code, stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr holds a stack trace:\n%s", stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "passed", "shrunk")); err == nil {
		t.Error("a refused shrink made its output directory")
	}
}

// noisyPitfall is the ignoresdone election's pitfall — its leader paused
// past its TTL as it wins — with two faults beside it that do not matter:
// a compaction and a follower killed for half a second.
func noisyPitfall(t *testing.T) scenarios.Scenario {
	t.Helper()
	r, err := election.Lookup("ignoresdone")
	if err != nil {
		t.Fatal(err)
	}
	return scenarios.Scenario{
		Name:     "election/ignoresdone/noisy-pause-leader",
		Cluster:  scenarios.Cluster{Members: 3},
		Workload: scenarios.Workload{Family: scenarios.FamilyElection, Recipe: r.Name, Clients: 2, Duration: scenarios.Duration(4 * time.Second)},
		Faults: scenarios.Faults{Timeline: &faults.Timeline{
			Steps: []faults.Step{
				faults.At(500*time.Millisecond, 0, faults.Compact()),
				faults.At(time.Second, 500*time.Millisecond, faults.Kill(faults.Follower)),
			},
			Triggers: []faults.Trigger{
				faults.On(faults.Match{Kind: checker.KindCampaign, Key: "E"}, 2*time.Second, faults.Pause(faults.ElectionLeader("E"))),
			},
		}},
		Checkers: []scenarios.Check{{Name: checker.CheckerElectionSafety}, {Name: checker.CheckerFencing}},
		Expect:   r.Expect,
		Seed:     1,
	}
}

// failingRun runs s into dir and returns its result.json, failing the
// test unless the run found the violation s expects.
func failingRun(t *testing.T, s scenarios.Scenario, dir string) string {
	t.Helper()
	res, err := scenarios.Run(context.Background(), s, scenarios.Options{Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Met {
		t.Fatalf("the run to shrink did not find its violation: %v", res.Err())
	}
	return filepath.Join(dir, "result.json")
}

// Under -race it skips: its dozen runs are CPU-bound clusters in this
// process, which the detector slows about tenfold, and
// TestShrinkInterrupted puts the same shrink, its original run and a
// candidate, under the detector. make test runs it without the detector
// (the Makefile's SAMPLED_TESTS).
func TestShrinkFindsTheFaultThatMatters(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real clusters, a dozen times")
	}
	if patience.RaceEnabled {
		t.Skip("race detector on: make test runs this without it (SAMPLED_TESTS); TestShrinkInterrupted runs the shrink under it")
	}
	input := failingRun(t, noisyPitfall(t), filepath.Join(t.TempDir(), "run"))
	out := filepath.Join(t.TempDir(), "shrunk")
	code, stdout, stderr := simrunRun(t, "shrink", "-trials", "1", "-out", out, input)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	defer func() {
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
		}
	}()

	s, err := results.ReadScenario(filepath.Join(out, results.ScenarioFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("the shrunk scenario does not validate: %v", err)
	}
	lines := s.Faults.Lines()
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "#1 pause(election-leader E) on ") {
		t.Errorf("shrunk to faults %q, want the one pause of the leader", lines)
	}
	if want := (checker.Expectation{Checker: checker.CheckerElectionSafety, Violation: checker.ViolationTwoLeaders}); s.Expect != want {
		t.Errorf("the shrunk scenario expects %v, want %v", s.Expect, want)
	}
	var rec struct {
		Tries []struct {
			Change string `json:"change"`
			Kept   bool   `json:"kept"`
			Run    string `json:"run"`
		} `json:"tries"`
		Shrunk *json.RawMessage `json:"shrunk"`
	}
	readJSONFile(t, filepath.Join(out, "shrink.json"), &rec)
	if len(rec.Tries) < 3 || !rec.Tries[0].Kept || rec.Shrunk == nil {
		t.Fatalf("shrink.json: %d tries, the first kept %v, shrunk %v; want the original kept and more tried", len(rec.Tries), len(rec.Tries) > 0 && rec.Tries[0].Kept, rec.Shrunk != nil)
	}
	for _, w := range []string{"shrunk:", "finds violation of election-safety (two-leaders) in 1 of 1 trials", "scenario: ", "report: "} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout does not say %q", w)
		}
	}
	var last string
	for _, tr := range rec.Tries {
		if tr.Kept {
			last = tr.Run
		}
	}
	if _, err := os.Stat(filepath.Join(out, last, "report.html")); err != nil {
		t.Errorf("no report of the shrunk run: %v", err)
	}
}

// lockedBuffer is a bytes.Buffer safe for one writer and one reader.
type lockedBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *lockedBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *lockedBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Interrupted while it runs a candidate, shrink stops it, writes the
// smallest failing scenario so far — here the original — and exits 130.
func TestShrinkInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real clusters")
	}
	input := failingRun(t, noisyPitfall(t), filepath.Join(t.TempDir(), "run"))
	out := filepath.Join(t.TempDir(), "shrunk")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- simrun.Run(ctx, []string{"shrink", "-trials", "1", "-out", out, input}, &stdout, &stderr)
	}()
	deadline := time.After(3 * time.Minute)
	for !strings.Contains(stderr.String(), "[  1] ") {
		select {
		case code := <-done:
			t.Fatalf("shrink exited %d before its first candidate\nstderr:\n%s", code, stderr.String())
		case <-deadline:
			cancel()
			<-done
			t.Fatalf("no first candidate after 3m\nstderr:\n%s", stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	var code int
	select {
	case code = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("shrink did not return within 2m of the interrupt\nstderr:\n%s", stderr.String())
	}
	if code != 130 {
		t.Errorf("exit %d, want 130\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	s, err := results.ReadScenario(filepath.Join(out, results.ScenarioFile))
	if err != nil {
		t.Fatalf("no scenario written: %v\nstderr:\n%s", err, stderr.String())
	}
	if n := len(s.Faults.Lines()); n != 3 {
		t.Errorf("the scenario so far has %d faults, want the original's 3", n)
	}
	var rec struct {
		Interrupted bool `json:"interrupted"`
	}
	readJSONFile(t, filepath.Join(out, "shrink.json"), &rec)
	if !rec.Interrupted {
		t.Error("shrink.json does not say it was interrupted")
	}
	if !strings.Contains(stdout.String(), "shrunk:") {
		t.Errorf("stdout does not show the schedule so far:\n%s", stdout.String())
	}
}

func writeResultJSON(t *testing.T, path string, r *scenarios.Result) {
	t.Helper()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeText(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
