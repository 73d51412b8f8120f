package simrun_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestInterrupt sends SIGINT to a simrun binary in the middle of a run,
// which runs in a child process, and requires it to pass the signal on,
// the child to heal and close the cluster, and simrun to write the summary
// and exit 130 within a generous deadline, leaving no child process and no
// etcd data directory behind.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds simrun and runs a real cluster")
	}
	childProcessTest(t)
	out, tmp, b := interruptRun(t, 1)
	checkInterruptedSummary(t, b)
	run := filepath.Join(out, "lock-mutex-leader-kill", "seed-1")
	noChildLeft(t, run)
	// A child that healed and closed in its grace says why it stopped; one
	// that did not was killed, which a loaded machine may cause.
	if b, err := os.ReadFile(filepath.Join(run, "harness-error.txt")); err == nil {
		t.Logf("the child stopped: %s", b)
	} else {
		t.Logf("the child was killed after its grace: %v", err)
	}
	noTempLeft(t, tmp)
}

// interruptRun builds simrun, runs lock/mutex/leader-kill with it in a
// child process, sends it SIGINT signals times, 100 ms apart, once the
// cluster is up, and requires it to exit 130 within a generous deadline.
// It returns the output directory, the TMPDIR the run had, and
// summary.json.
func interruptRun(t *testing.T, signals int) (out, tmp string, summary []byte) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "simrun")
	build := exec.Command("go", "build", "-o", bin, "github.com/etcdsim/etcdsim/cmd/simrun")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	tmp, out = t.TempDir(), t.TempDir()
	// lock/mutex/leader-kill runs its workload for 8 s: on the real clock,
	// since on the virtual one the whole run takes about a second of wall
	// time and is over before the signal.
	cmd := exec.Command(bin, "run", "-clock", "real", "-parallel", "1", "-out", out, "lock/mutex/leader-kill")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	time.Sleep(3 * time.Second) // into the workload: the cluster is up
	for range signals {
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var err error
	select {
	case err = <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill() //nolint:errcheck // failing anyway
		<-exited
		t.Fatalf("simrun did not exit within 30s of %d SIGINT\nstderr:\n%s", signals, stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, want exit code 130\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	summary, err = os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatalf("no summary: %v\nstderr:\n%s", err, stderr.String())
	}
	return out, tmp, summary
}

// interruptedSummary is what the signal tests read of summary.json.
type interruptedSummary struct {
	Interrupted     bool `json:"interrupted"`
	Planned         int  `json:"planned"`
	HarnessFailures int  `json:"harness_failures"`
	InterruptedRuns int  `json:"interrupted_runs"`
	Runs            []struct {
		Dir         string `json:"dir"`
		Interrupted bool   `json:"interrupted"`
		Error       string `json:"error"`
		Why         string `json:"why"`
	} `json:"runs"`
}

// checkInterruptedSummary requires the summary b of an interrupted run of
// lock/mutex/leader-kill to list that run as interrupted, not as a
// harness failure, and not to leave it out.
func checkInterruptedSummary(t *testing.T, b []byte) {
	t.Helper()
	var sum interruptedSummary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if !sum.Interrupted || sum.Planned != 1 {
		t.Errorf("summary.json: interrupted %v, planned %d; want true, 1", sum.Interrupted, sum.Planned)
	}
	if len(sum.Runs) != 1 || !sum.Runs[0].Interrupted || sum.Runs[0].Dir != "lock-mutex-leader-kill/seed-1" || sum.Runs[0].Error != "" {
		t.Errorf("summary.json runs: %+v; want the one run listed as interrupted, with no harness error", sum.Runs)
	}
	if sum.HarnessFailures != 0 || sum.InterruptedRuns != 1 {
		t.Errorf("summary.json: harness_failures %d, interrupted_runs %d; want 0, 1", sum.HarnessFailures, sum.InterruptedRuns)
	}
}

// TestInterruptTwice sends SIGINT twice: the second kills the running
// child at once rather than after its grace, and simrun still writes a
// summary that lists the run as interrupted and exits 130 — no run
// directory is left beside the summary unlisted, and none finishes after
// it.
func TestInterruptTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("builds simrun and runs a real cluster")
	}
	childProcessTest(t)
	out, tmp, b := interruptRun(t, 2)
	checkInterruptedSummary(t, b)
	run := filepath.Join(out, "lock-mutex-leader-kill", "seed-1")
	noChildLeft(t, run)
	if _, err := os.Stat(filepath.Join(run, "result.json")); err == nil {
		t.Errorf("%s has a result.json, but the summary lists the run as interrupted", run)
	}
	noTempLeft(t, tmp)
}
