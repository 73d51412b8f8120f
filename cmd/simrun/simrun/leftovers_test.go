package simrun_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNothingOutlivesARun ends a run of a program that ignores its stdin
// closing and every signal but SIGKILL (testdata/stubborn.py) in each way
// a run can end, and requires that no process of the run — the child, the
// program — is left (ps: /proc) and, once the next simrun has started
// after a kill -9, no temp dir either.
func TestNothingOutlivesARun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds simrun and runs real clusters")
	}
	childProcessTest(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("the stubborn program needs python3")
	}
	bin := filepath.Join(t.TempDir(), "simrun")
	if b, err := exec.Command("go", "build", "-o", bin, "github.com/etcdsim/etcdsim/cmd/simrun").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	tests := []struct {
		name  string
		flags []string       // besides -command, -parallel and -out
		sig   syscall.Signal // sent to simrun once the programs run; 0: none
	}{
		{name: "normal end", flags: []string{"-duration", "6s"}}, // its schedule ends at 5s
		{name: "run timeout", flags: []string{"-duration", "60s", "-run-timeout", "8s"}},
		{name: "Ctrl-C", flags: []string{"-duration", "60s"}, sig: syscall.SIGINT},
		{name: "SIGTERM", flags: []string{"-duration", "60s"}, sig: syscall.SIGTERM},
		{name: "kill -9", flags: []string{"-duration", "60s"}, sig: syscall.SIGKILL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, tmp, out := t.TempDir(), t.TempDir(), t.TempDir()
			// Its own copy, so that its path marks this case's processes.
			stub := filepath.Join(dir, "stubborn.py")
			b, err := os.ReadFile("testdata/stubborn.py")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(stub, b, 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"run", "-command", "python3 " + stub, "-parallel", "1", "-out", out}, tt.flags...)
			cmd := exec.Command(bin, append(args, "lock/mutex/leader-kill")...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stderr, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer killLeft(t, stub, out)
			// Every case runs its programs first: a run refused before it
			// starts would leave nothing behind and prove nothing.
			waitFor(t, "the programs to start", func() bool { return len(programsOf(stub)) > 0 })
			if tt.sig != 0 {
				if err := cmd.Process.Signal(tt.sig); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case err := <-exited:
				t.Logf("simrun: %v", err)
			case <-time.After(3 * time.Minute):
				cmd.Process.Kill() //nolint:errcheck // failing anyway
				<-exited
				t.Fatalf("simrun did not exit within 3m\n%s", &stderr)
			}
			if tt.sig == syscall.SIGKILL {
				// The next simrun to start sweeps what the killed one left.
				cmd := exec.Command(bin, "list")
				cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("simrun list: %v\n%s", err, b)
				}
			}
			waitFor(t, "the run's processes to end", func() bool {
				return len(processesOf(stub)) == 0 && len(processesOf(out)) == 0
			})
			noTempLeft(t, tmp)
			if t.Failed() {
				t.Logf("simrun's output:\n%s", &stderr)
			}
		})
	}
}

// waitFor waits, generously, until done, and fails the test if it never is.
func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processesOf returns the running processes whose command line has mark
// in it, as ps would list them, reading /proc.
func processesOf(mark string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), mark) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if _, state, ok := strings.Cut(string(stat), ") "); err != nil || !ok || strings.HasPrefix(state, "Z") {
			continue // a zombie runs nothing
		}
		pids = append(pids, pid)
	}
	return pids
}

// programsOf returns the running processes of python3 whose command line
// has mark in it: the programs, not the simrun that names them.
func programsOf(mark string) []int {
	var pids []int
	for _, pid := range processesOf(mark) {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		argv0, _, _ := strings.Cut(string(cmdline), "\x00")
		if strings.HasPrefix(filepath.Base(argv0), "python") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killLeft kills, and names as a failure, whatever process of a case is
// still running, so that a failing case leaves nothing either.
func killLeft(t *testing.T, marks ...string) {
	t.Helper()
	for _, m := range marks {
		for _, pid := range processesOf(m) {
			t.Errorf("process %d of the run was still running: killed", pid)
			syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // it may have ended since
		}
	}
}
