package simrun_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// resumeCampaign is the campaign the resume tests interrupt: 8 runs on
// the virtual clock, of scenarios that expect a pass and scenarios that
// expect a violation. None kills a member: a killed in-memory member that
// comes back now and then panics in raft's log (maybeAppend, index out of
// range), a harness failure these tests are not about.
const resumeCampaign = `scenarios: [lock/shared-session/healthy, election/modrevision/healthy, lock/mutex/pause-holder, election/rechecked/pause-leader]
seeds: [1, 2]
`

// TestCampaignResumes runs a campaign without a break, then breaks the
// same campaign off twice — once by its context, once by SIGKILL — and
// resumes each into the verdicts of the unbroken one.
func TestCampaignResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a campaign of real clusters five times")
	}
	if !patience.RaceEnabled {
		// Without the detector (make test's test-children) its campaigns
		// run beside the other tests of programs they build.
		t.Parallel()
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "campaign.yaml")
	if err := os.WriteFile(file, []byte(resumeCampaign), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "simrun")
	if b, err := exec.Command("go", "build", "-o", bin, "github.com/etcdsim/etcdsim/cmd/simrun").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	// The campaign without a break, whose verdicts both resumes must end
	// with, runs in the simrun binary, each run in a child process, as the
	// killed one does: under -race only this process is instrumented, so
	// the detector's tenfold slowdown goes to the campaign whose break and
	// resume this test is about. A run's verdict does not depend on where
	// it runs: the interrupted campaign's, here, and the killed one's, in
	// the binary, are both compared with it.
	whole := filepath.Join(dir, "whole")
	if out, err := exec.Command(bin, "campaign", "-f", file, "-parallel", "2", "-out", whole).CombinedOutput(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() > 1 {
			t.Fatalf("the uninterrupted campaign: %v\n%s", err, out)
		}
	}
	t.Run("interrupted", func(t *testing.T) { resumeInterrupted(t, file, whole, filepath.Join(dir, "broken")) })
	t.Run("killed", func(t *testing.T) {
		skipUnderRace(t) // the binary's campaign, killed and resumed: no run in this process
		resumeKilled(t, bin, file, whole, filepath.Join(dir, "killed"))
	})
}

// resumeInterrupted interrupts the campaign in file after a few runs (its
// context ends, as SIGINT ends simrun's), truncates the result of one run
// it finished, and runs the campaign again into the same directory,
// broken: it keeps the complete runs, reruns the truncated and interrupted
// ones and runs the missing ones, and ends with exactly the runs and
// verdicts of the same campaign run without a break, whole.
func resumeInterrupted(t *testing.T, file, whole, broken string) {
	campaign := func(ctx context.Context, out string, stderr *syncBuffer) int {
		var stdout bytes.Buffer
		code := simrun.Run(ctx, []string{"campaign", "-f", file, "-parallel", "2", "-inprocess", "-out", out}, &stdout, stderr)
		if t.Failed() || testing.Verbose() {
			t.Logf("campaign into %s: exit %d\nstdout:\n%s\nstderr:\n%s", out, code, &stdout, stderr)
		}
		return code
	}

	// Interrupted once three runs have finished.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &syncBuffer{onLine: func(l string) {
		if strings.HasPrefix(l, "[3/") {
			cancel()
		}
	}}
	if code := campaign(ctx, broken, stderr); code != 130 {
		t.Fatalf("the interrupted campaign: exit %d, want 130", code)
	}
	// It gives the prompt back without drawing the pages, and says how.
	if _, err := os.Stat(filepath.Join(broken, "index.html")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the interrupted campaign drew its pages (%v); want them left to the resume", err)
	}
	if !strings.Contains(stderr.String(), "simrun report "+broken) {
		t.Errorf("the interrupted campaign's stderr does not say how to draw the pages:\n%s", stderr)
	}
	sum, err := results.ReadSummary(filepath.Join(broken, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	// The runs the interrupt stopped are listed too, as interrupted.
	finished := sum.Finished()
	if !sum.Interrupted || finished < 3 || finished >= sum.Planned || len(sum.Runs)-finished != sum.InterruptedRuns {
		t.Fatalf("the interrupted campaign's summary: interrupted %v, %d of %d runs finished, %d listed, %d interrupted; want interrupted after 3 or more, the rest listed as interrupted",
			sum.Interrupted, finished, sum.Planned, len(sum.Runs), sum.InterruptedRuns)
	}
	first := slices.IndexFunc(sum.Runs, func(r results.SummaryRun) bool { return !r.Interrupted })
	sum.Runs[0] = sum.Runs[first]
	truncated := sum.Runs[0].Dir
	p := filepath.Join(broken, filepath.FromSlash(truncated), results.ResultFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}

	stderr = &syncBuffer{}
	if code := campaign(context.Background(), broken, stderr); code > 1 {
		t.Fatalf("the resumed campaign: exit %d", code)
	}
	m := regexp.MustCompile(`resuming .*: (\d+) runs complete, 1 truncated rerun, (\d+) interrupted rerun, (\d+) missing`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("the resumed campaign does not say what it resumed, with 1 truncated run:\n%s", stderr)
	}
	t.Logf("interrupted after %d runs; %s", finished, m[0])
	complete, _ := strconv.Atoi(m[1])
	if complete != finished-1 {
		t.Errorf("resumed %d complete runs; the interrupted campaign finished %d, one of which was truncated", complete, finished)
	}
	if !strings.Contains(stderr.String(), "rerunning "+sum.Runs[0].Label()+" seed "+sum.Runs[0].Seed.String()+": results: ") {
		t.Errorf("the resumed campaign does not say why it reruns %s:\n%s", truncated, stderr)
	}
	resumed, err := results.ReadSummary(filepath.Join(broken, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Interrupted || resumed.Reused != complete || len(resumed.Runs) != resumed.Planned {
		t.Errorf("the resumed summary: interrupted %v, %d runs reused, %d of %d runs; want %d reused and every run",
			resumed.Interrupted, resumed.Reused, len(resumed.Runs), resumed.Planned, complete)
	}
	if diff := cmp.Diff(verdicts(t, whole), verdicts(t, broken)); diff != "" {
		t.Errorf("the resumed campaign's runs differ from the uninterrupted one's (-whole +resumed):\n%s", diff)
	}
}

// resumeKilled is the Kubernetes story: the simrun binary bin, running the
// campaign in file each run in a child process, is killed (SIGKILL: an
// evicted or OOM-killed pod) after a few runs, with no chance to write its
// summary; the same command again resumes the directory killed and ends
// with the runs and verdicts of the campaign run without a break, whole.
func resumeKilled(t *testing.T, bin, file, whole, killed string) {
	args := []string{"campaign", "-f", file, "-parallel", "1", "-out", killed}
	cmd := exec.Command(bin, args...)
	var out1 bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out1, &out1
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(2 * time.Minute)
poll:
	for finishedRuns(t, killed) < 2 {
		select {
		case err := <-exited:
			t.Fatalf("the campaign ended (%v) before it could be killed after 2 runs:\n%s", err, &out1)
		case <-deadline:
			cmd.Process.Kill() //nolint:errcheck // failing anyway
			<-exited
			t.Fatalf("the campaign did not finish 2 runs in 2 minutes:\n%s", &out1)
		case <-time.After(20 * time.Millisecond):
			continue poll
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	sum, err := results.ReadSummary(filepath.Join(killed, results.SummaryFile))
	if err != nil {
		t.Fatalf("the killed campaign left no summary to resume by: %v", err)
	}
	if !sum.Interrupted || sum.Campaign == "" {
		t.Errorf("the killed campaign's summary: interrupted %v, campaign %q; want interrupted, naming its campaign", sum.Interrupted, sum.Campaign)
	}

	out2, err := exec.Command(bin, args...).CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("the resumed campaign: %v\n%s", err, out2)
	}
	resuming := regexp.MustCompile(`resuming .*: ([2-9]|1\d) runs complete, 0 truncated rerun, \d+ interrupted rerun, \d+ missing`).Find(out2)
	t.Logf("killed after %d runs; %s", len(sum.Runs), resuming)
	if resuming == nil {
		t.Errorf("the resumed campaign does not say it resumed at least the 2 runs finished:\n%s", out2)
	}
	if diff := cmp.Diff(verdicts(t, whole), verdicts(t, killed)); diff != "" {
		t.Errorf("the resumed campaign's runs differ from the uninterrupted one's (-whole +resumed):\n%s\nkilled:\n%s\nresumed:\n%s", diff, &out1, out2)
	}
}

// finishedRuns counts the run directories under dir that hold a
// result.json.
func finishedRuns(t *testing.T, dir string) int {
	t.Helper()
	rels, err := results.RunDirs(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, rel := range rels {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel), results.ResultFile)); err == nil {
			n++
		}
	}
	return n
}

// verdicts reads the results directory dir, which must read whole, and
// says of each run what its seed decides: its expectation met, its
// verdict, and whether it found the violation it expects. Not more: the
// virtual clock fixes when every goroutine wakes, not the order of those
// that wake at the same instant, so a further checker's verdict or how
// many violations a run finds may differ between two runs of one seed
// (lock/shared-session/healthy's fencing, say, beside the overlap it is
// about).
func verdicts(t *testing.T, dir string) map[string]string {
	t.Helper()
	d, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Err(); err != nil {
		t.Errorf("%s does not read whole: %v", dir, err)
	}
	if d.Summary == nil || len(d.Summary.Runs) != len(d.Runs) {
		t.Errorf("%s: the summary does not list the %d runs read", dir, len(d.Runs))
	}
	out := map[string]string{}
	for _, r := range d.Runs {
		exp := r.Result.Scenario.Expect
		found, _ := exp.Met(r.Result.Checks...)
		out[r.Dir] = fmt.Sprintf("met %v, %s; %v found: %v", r.Result.Met, r.Result.Verdict, exp, found)
	}
	return out
}

// syncBuffer is stderr for a simrun.Run: written from its goroutines,
// read once it has returned; onLine, if set, hears each whole line.
type syncBuffer struct {
	mu     sync.Mutex // guards buf and line
	buf    bytes.Buffer
	line   []byte
	onLine func(string)
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	for _, c := range p {
		if c != '\n' {
			b.line = append(b.line, c)
			continue
		}
		if b.onLine != nil {
			b.onLine(string(b.line))
		}
		b.line = b.line[:0]
	}
	return len(p), nil
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
