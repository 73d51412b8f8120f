package simrun_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReplayInProcessLogsToTheRunsFile replays in simrun's own process
// the run of a recipe whose library logs to standard error: the log goes
// to the run's child.log, as in a child process, and simrun's output ends
// with the verdict.
func TestReplayInProcessLogsToTheRunsFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program and runs real clusters")
	}
	childProcessTest(t)
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("standard error is moved on Linux and macOS only")
	}
	dir, bin := buildBadsim(t)
	out := filepath.Join(dir, "out")
	simrun := func(args ...string) (string, string) { t.Helper(); return runProgram(t, bin, args...) }
	simrun("run", "-inprocess", "-out", out, "lock/chatty/healthy")
	run := filepath.Join(out, "lock-chatty-healthy", "seed-1")
	replayDir := filepath.Join(dir, "replayed")
	stdout, stderr := simrun("replay", "-inprocess", "-out", replayDir, filepath.Join(run, "result.json"))
	if strings.Contains(stdout+stderr, "chatty: locking, the log says") {
		t.Errorf("the library's log reached simrun's output:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if !strings.Contains(stderr, "what its libraries log to standard error goes to "+filepath.Join(replayDir, "child.log")) {
		t.Errorf("simrun does not say where the libraries' log goes:\n%s", stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if last := lines[len(lines)-1]; last != "reproduced: lock/chatty/healthy seed 1" {
		t.Errorf("replay's last line = %q, want the verdict", last)
	}
	b, err := os.ReadFile(filepath.Join(replayDir, "child.log"))
	if err != nil || !strings.Contains(string(b), "chatty: locking, the log says") {
		t.Errorf("child.log: %v; want the library's log, got:\n%s", err, b)
	}
}
