package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSoak50 is make soak in small: the soak campaign over 10 seeds (50
// runs, 1 s each, two at a time, each in a child process), then the same
// check from run 10 with a generous tolerance. It also checks that
// nothing is left behind: no process of the simrun binary, and nothing in
// the runs' temporary directory.
func TestSoak50(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 50 real clusters in child processes, about a minute")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "simrun")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/etcdsim/etcdsim/cmd/simrun").CombinedOutput(); err != nil {
		t.Fatalf("go build simrun: %v\n%s", err, out)
	}
	soak, err := os.ReadFile("../../simrun/testdata/soak.yaml")
	if err != nil {
		t.Fatal(err)
	}
	campaign := regexp.MustCompile(`(?m)^seeds:.*$`).ReplaceAll(soak, []byte("seeds: {base: 1, count: 10}"))
	file := filepath.Join(dir, "soak50.yaml")
	if err := os.WriteFile(file, campaign, 0o644); err != nil {
		t.Fatal(err)
	}
	tmp, out := filepath.Join(dir, "tmp"), filepath.Join(dir, "out")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "campaign", "-f", file, "-parallel", "2", "-out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	defer func() {
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr:\n%s", &stdout, &stderr)
		}
	}()
	// A run that missed its expectation (exit 1) on a loaded machine is
	// no concern of a soak.
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("simrun campaign: %v", err)
	}

	rep, err := checkFile(filepath.Join(out, "summary.json"), 10, 0.5)
	t.Logf("\n%s", rep)
	if err != nil {
		t.Error(err)
	}
	if !strings.Contains(rep, "50 runs (50 planned)") {
		t.Errorf("want 50 finished runs of 50")
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("left in TMPDIR: %s", strings.Join(names, ", "))
	}
	if pids := running(bin); len(pids) > 0 {
		t.Errorf("processes of %s still running: %s", bin, strings.Join(pids, ", "))
	}
}

// running returns the pids of the processes running the program at bin.
func running(bin string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && strings.TrimSuffix(exe, " (deleted)") == bin {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
