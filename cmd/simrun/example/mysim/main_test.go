package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMysimIsASimrun builds mysim and runs it as a user would: list shows
// its own scenarios beside the registered ones, and one of them runs and
// passes, with a replay command that names mysim.
func TestMysimIsASimrun(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "mysim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	out, err := exec.Command(bin, "list").CombinedOutput()
	if err != nil {
		t.Fatalf("mysim list: %v\n%s", err, out)
	}
	for _, want := range []string{"lock/my-mutex/standard-mix", "lock/my-mutex/pause-holder", "lock/my-mutex/leader-kill", "lock/mutex/standard-mix"} {
		if !strings.Contains(string(out), want+" ") {
			t.Errorf("mysim list does not show %s:\n%s", want, out)
		}
	}

	if testing.Short() {
		t.Skip("the run part starts a real cluster")
	}
	args := []string{"run", "-duration", "6s", "-parallel", "1", "-out", filepath.Join(dir, "results"), "lock/my-mutex/pause-holder"}
	out, err = exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("mysim %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if !strings.Contains(string(out), "1 of 1 runs met their expectation") {
		t.Errorf("mysim %s: the summary does not say the run met its expectation:\n%s", strings.Join(args, " "), out)
	}
	// Only mysim has my-mutex: the replay command it writes must name it.
	sum, err := os.ReadFile(filepath.Join(dir, "results", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sum), `"mysim replay `) || strings.Contains(string(sum), `"simrun replay `) {
		t.Errorf("mysim's summary.json does not say to replay with mysim:\n%s", sum)
	}
}
