package simrun_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestChildProcessFailures runs, each in its child process, a recipe whose
// Lock blocks forever ignoring its context, one whose Lock panics, and a
// sound scenario. The first two must be recorded as harness failures — a
// timeout, with the hung child's stacks in its log, and a panic, each
// naming its files — while the third is judged
// and meets its expectation; simrun exits 1 and leaves no child behind.
func TestChildProcessFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program and runs real clusters in child processes for about 15s")
	}
	childProcessTest(t)
	dir, bin := buildBadsim(t)
	tmp, out := t.TempDir(), filepath.Join(dir, "out")
	cmd := exec.Command(bin, "run", "-parallel", "3", "-run-timeout", "10s", "-out", out,
		"lock/hang/healthy", "lock/panic/healthy", short)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("exit: %v, want exit code 1", err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr:\n%s", &stdout, &stderr)
		}
	}()

	var sum struct {
		HarnessFailures int `json:"harness_failures"`
		Runs            []struct {
			Name  string `json:"name"`
			Dir   string `json:"dir"`
			Met   bool   `json:"met"`
			Error string `json:"error"`
		} `json:"runs"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.HarnessFailures != 2 {
		t.Errorf("summary.json: harness_failures %d, want 2", sum.HarnessFailures)
	}
	want := map[string][]string{ // what each run's error must say; nil: judged, no error
		"lock/hang/healthy":  {"lock/hang/healthy seed 1", "timed out after 10s", "every goroutine's stack", "lock-hang-healthy/seed-1/child.log"},
		"lock/panic/healthy": {"lock/panic/healthy seed 1", "panic: badsim: this Lock panics", "child.log", "result.json"},
		short:                nil,
	}
	if len(sum.Runs) != len(want) {
		t.Errorf("summary.json has %d runs, want %d", len(sum.Runs), len(want))
	}
	for _, r := range sum.Runs {
		says, ok := want[r.Name]
		if !ok {
			t.Errorf("summary.json has a run of %s", r.Name)
			continue
		}
		if says == nil {
			if r.Error != "" || !r.Met {
				t.Errorf("%s: met %v, error %q; want judged and met", r.Name, r.Met, r.Error)
			}
		} else {
			if r.Met || r.Error == "" {
				t.Errorf("%s: met %v, error %q; want a harness failure", r.Name, r.Met, r.Error)
			}
			for _, w := range says {
				if !strings.Contains(r.Error, w) {
					t.Errorf("%s: the error does not say %q: %s", r.Name, w, r.Error)
				}
			}
		}
		noChildLeft(t, filepath.Join(out, r.Dir))
		if r.Name == "lock/hang/healthy" {
			// The hung child, sent SIGQUIT, wrote its stacks, the
			// blocked Lock among them.
			log, err := os.ReadFile(filepath.Join(out, r.Dir, "child.log"))
			if err != nil || !strings.Contains(string(log), "SIGQUIT") || !strings.Contains(string(log), "main.hang.Lock") {
				t.Errorf("%s: child.log has no stacks with the hung Lock (err %v):\n%.2000s", r.Name, err, log)
			}
		}
	}
	if !strings.Contains(stdout.String(), "HARNESS") {
		t.Errorf("the summary table has no HARNESS column:\n%s", &stdout)
	}
	noTempLeft(t, tmp)
}

// noChildLeft fails the test if the child process whose pid is in
// runDir/child.pid is still alive.
func noChildLeft(t *testing.T, runDir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(runDir, "child.pid"))
	if err != nil {
		t.Errorf("the run's child wrote no pid: %v", err)
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Errorf("%s: %v", runDir, err)
		return
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the child process %d of %s is still there (kill -0: %v)", pid, runDir, err)
	}
}

// noTempLeft fails the test if an etcdsim temp directory is left in tmp.
func noTempLeft(t *testing.T, tmp string) {
	t.Helper()
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		if strings.HasPrefix(e.Name(), "etcdsim") {
			t.Errorf("left behind in TMPDIR: %s", e.Name())
		}
	}
}

// TestReplayInChildProcess replays, in a child process, the run of a
// recipe whose library prints to standard output and logs to standard
// error: both go to the run's files, not simrun's output, which ends with
// the verdict; and writing to standard output is named as the recipe's
// fault.
func TestReplayInChildProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program and runs real clusters in child processes")
	}
	childProcessTest(t)
	dir, bin := buildBadsim(t)
	out := filepath.Join(dir, "out")
	simrun := func(args ...string) (string, string) { t.Helper(); return runProgram(t, bin, args...) }
	simrun("run", "-out", out, "lock/chatty/healthy")
	run := filepath.Join(out, "lock-chatty-healthy", "seed-1")
	stdout, stderr := simrun("replay", filepath.Join(run, "result.json"))
	for _, l := range strings.Split(stdout+stderr, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "chatty: locking") { // the fault's sentence quotes it, the output would not
			t.Errorf("the library's output reached simrun's:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			break
		}
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if last := lines[len(lines)-1]; last != "reproduced: lock/chatty/healthy seed 1" {
		t.Errorf("replay's last line = %q, want the verdict", last)
	}
	if !strings.Contains(stdout, "the recipe's fault: the recipe wrote ") || !strings.Contains(stdout, `beginning "chatty: locking"`) {
		t.Errorf("replay's output does not name the writes to standard output as the recipe's fault:\n%s", stdout)
	}
	replayDir := filepath.Join(run, "replay")
	for file, want := range map[string]string{"stdout.log": "chatty: locking\n", "child.log": "chatty: locking, the log says"} {
		b, err := os.ReadFile(filepath.Join(replayDir, file))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v; want it to hold %q, got:\n%s", file, err, want, b)
		}
	}
	var res struct {
		RecipeFaults []string `json:"recipe_faults"`
	}
	b, err := os.ReadFile(filepath.Join(replayDir, "result.json"))
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil || len(res.RecipeFaults) == 0 || !strings.Contains(res.RecipeFaults[0], "standard output directly") {
		t.Errorf("result.json's recipe_faults = %q (%v), want the writes to standard output", res.RecipeFaults, err)
	}
}

// runProgram runs bin with args, with a TMPDIR of the test's, and returns
// its standard output and error; a failure fails the test.
func runProgram(t *testing.T, bin string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, &stdout, &stderr)
	}
	return stdout.String(), stderr.String()
}

// buildBadsim builds ./testdata/badsim into a directory of the test's, and
// returns both.
func buildBadsim(t *testing.T) (dir, bin string) {
	t.Helper()
	dir = t.TempDir()
	bin = filepath.Join(dir, "badsim")
	if b, err := exec.Command("go", "build", "-o", bin, "./testdata/badsim").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/badsim: %v\n%s", err, b)
	}
	return dir, bin
}
