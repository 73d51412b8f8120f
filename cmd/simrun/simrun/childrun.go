package simrun

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// childGrace is how long a child has, once told to stop (SIGTERM), to heal
// and close its cluster before it is killed.
const childGrace = 3 * time.Second

// runner says where runs go: into child processes of their own, or into
// this process.
type runner struct {
	// inProcess runs every run in this process.
	inProcess bool
	// exe is the binary a child runs: this program's own.
	exe string
	// timeout bounds each run; 0 means budget(s).
	timeout time.Duration
	// replay is the command that replays the run whose result.json is at
	// a path.
	replay func(path string) string
	// hard, once done (simrun's second signal), has a child told to stop
	// killed at once rather than after its grace; nil never is.
	hard <-chan struct{}
}

// limit is how long the run of s may take.
func (r runner) limit(s scenarios.Scenario) time.Duration {
	if r.timeout > 0 {
		return r.timeout
	}
	return budget(s)
}

// defaultInProcess says whether runs stay in this process when -inprocess
// is not given. They do in a test binary (its name ends in .test): started
// again with a child's arguments it would run its tests, not simrun, so a
// go test that calls Run runs in process. They do where child processes
// are not supported, and when the binary cannot be found.
func defaultInProcess() bool {
	if !childSupported {
		return true
	}
	exe, err := os.Executable()
	if err != nil {
		return true
	}
	return strings.HasSuffix(strings.TrimSuffix(filepath.Base(exe), ".exe"), ".test")
}

// runChild runs j in a child process into dir, which holds its
// scenario.json (prepareRunDir), under the deadline limit,
// and reads back its result and its process stats. Whatever goes wrong —
// the deadline passed, the child crashed, was killed, failed its harness,
// or left no result, a truncated one or another run's — is an error
// wrapping scenarios.ErrHarness that names the run and the file, and the
// files the child left stay in dir. When ctx ends the child is told to
// stop and has childGrace to heal and close before it is killed; runChild
// returns once it has exited.
func (r runner) runChild(ctx context.Context, j job, dir, replay string, limit time.Duration) (*scenarios.Result, *results.ProcStats, error) {
	s := j.scenario
	run := fmt.Sprintf("%s seed %s", j.label(), s.Seed)
	harness := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", scenarios.ErrHarness, run, fmt.Sprintf(format, args...))
	}
	// The child's temp files (its members' data) go to a directory of its
	// own, removed once it has exited, even if it had to be killed, or by
	// the next simrun if this one is killed first (leftovers.go).
	tmp, err := makeChildTemp()
	if err != nil {
		return nil, nil, harness("%v", err)
	}
	defer os.RemoveAll(tmp)
	logPath := filepath.Join(dir, childLogFile)
	log, err := os.Create(logPath)
	if err != nil {
		return nil, nil, harness("%v", err)
	}
	defer log.Close()
	stdout, err := os.Create(filepath.Join(dir, childStdoutFile))
	if err != nil {
		return nil, nil, harness("%v", err)
	}
	defer stdout.Close()

	cmd := exec.Command(r.exe, childCommand, "-out", dir, "-replay", replay)
	cmd.Stdout, cmd.Stderr = stdout, log
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	setChildGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, nil, harness("starting the child process: %v", err)
	}
	pid := cmd.Process.Pid
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	var stopped string // why simrun stopped the child, if it did
	var werr error
	select {
	case werr = <-waited:
	case <-timer.C:
		stopped = fmt.Sprintf("timed out after %v", limit)
		var dumped bool
		if werr, dumped = stopChild(pid, waited, r.hard, true); dumped {
			stopped += fmt.Sprintf(" (every goroutine's stack when it would not stop is in %s)", logPath)
		}
		stopped += stoppingText(dir)
	case <-ctx.Done():
		stopped = "interrupted"
		werr, _ = stopChild(pid, waited, r.hard, false)
	}
	stats := readProcStats(filepath.Join(dir, processFile))
	if stats != nil && cmd.ProcessState != nil {
		stats.CPU = durationOf(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())
	}
	said := childSaid(dir, logPath)
	if stopped != "" {
		return nil, stats, harness("%s; the child process %d %s%s; its files are in %s", stopped, pid, exitText(werr), said, dir)
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) && ee.ExitCode() == exitRecipe {
		return nil, stats, fmt.Errorf("%w: %s%s", scenarios.ErrRecipe, run, said)
	}
	if werr != nil {
		return nil, stats, harness("the child process %d %s without writing %s%s; its files are in %s",
			pid, exitText(werr), filepath.Join(dir, results.ResultFile), said, dir)
	}
	res, err := readChildResult(dir, s)
	if err != nil {
		return nil, stats, harness("the child process %d exited 0, but %v", pid, err)
	}
	return res, stats, nil
}

// wroteStdout says, in a sentence for Result.RecipeFaults, that the run
// in dir wrote to its process's standard output — which simrun's child
// never does itself, so the recipe or its library did — or returns "".
func wroteStdout(dir string) string {
	path := filepath.Join(dir, childStdoutFile)
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return fmt.Sprintf("the recipe wrote %d bytes to the process's standard output directly, beginning %q: a library should write through a logger its caller can point elsewhere; simrun kept them in %s", len(b), first, path)
}

// stopChild tells the child's process group to stop, kills it if it has
// not exited after childGrace or once hard is done, and returns how it
// exited. With dump, a child that has not exited after childGrace is first
// sent SIGQUIT, on which the Go runtime writes every goroutine's stack to
// its standard error (the run's child.log) and exits; dumped says it did.
// A hang is then a stack to read, not a bare timeout.
func stopChild(pid int, waited <-chan error, hard <-chan struct{}, dump bool) (err error, dumped bool) {
	signalGroup(pid, syscall.SIGTERM) //nolint:errcheck // it may have exited already
	t := time.NewTimer(childGrace)
	defer t.Stop()
	select {
	case err := <-waited:
		return err, false
	case <-t.C:
	case <-hard:
		dump = false
	}
	if dump && signalProcess(pid, syscall.SIGQUIT) == nil {
		t.Reset(quitGrace)
		select {
		case err := <-waited:
			signalGroup(pid, syscall.SIGKILL) //nolint:errcheck // what it started, if any is left
			return err, true
		case <-t.C:
		case <-hard:
		}
	}
	signalGroup(pid, syscall.SIGKILL) //nolint:errcheck // it may have exited already
	return <-waited, false
}

// quitGrace is how long a child has to write its stacks after SIGQUIT.
const quitGrace = 5 * time.Second

// exitText says how a child exited, for an error message.
func exitText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
		}
		return fmt.Sprintf("exited with code %d", ee.ExitCode())
	}
	if err != nil {
		return "failed: " + err.Error()
	}
	return "exited 0"
}

// childSaid returns what a child said of its failure, as ": ..." to add
// to an error: harness-error.txt if it wrote one, else the first line of a
// panic or fatal error in its log, and "" if neither.
func childSaid(dir, logPath string) string {
	if b, err := os.ReadFile(filepath.Join(dir, harnessErrorFile)); err == nil {
		return ": " + strings.TrimSpace(string(b))
	}
	f, err := os.Open(logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return fmt.Sprintf(": %s (the trace is in %s)", l, logPath)
		}
	}
	return ""
}

// readChildResult reads the run a child wrote into dir and checks that it
// is the run of s, with its whole history.
// A recipe that wrote to standard output is named in it (wroteStdout),
// and the result written again.
func readChildResult(dir string, s scenarios.Scenario) (*scenarios.Result, error) {
	r, err := results.ReadRun(dir)
	if err != nil {
		return nil, fmt.Errorf("its result cannot be read: %w", err)
	}
	if got := r.Result.Scenario; got.Name != s.Name || got.Seed != s.Seed {
		return nil, fmt.Errorf("%s holds a run of %s seed %s, not of %s seed %s", filepath.Join(dir, results.ResultFile), got.Name, got.Seed, s.Name, s.Seed)
	}
	if note := wroteStdout(dir); note != "" {
		r.Result.RecipeFaults = append(r.Result.RecipeFaults, note)
		if err := results.WriteRun(dir, r); err != nil {
			return nil, err
		}
	}
	return r.Result, nil
}

// readProcStats reads the process stats a child wrote, or returns nil.
func readProcStats(path string) *results.ProcStats {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var p results.ProcStats
	if err := json.Unmarshal(b, &p); err != nil {
		return nil
	}
	return &p
}
