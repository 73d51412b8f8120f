package simrun_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestASpinningRunSaysHowFarItGot runs, in its child process, a recipe
// whose Lock spins without blocking, so that the virtual clock stands
// still, until its run timeout: the timeout's error says where the clock
// stood, the last event recorded, and the goroutine that ran most — the
// spinning Lock — and the run's stopping.txt says the same.
func TestASpinningRunSaysHowFarItGot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program and runs a real cluster in a child process")
	}
	childProcessTest(t)
	dir, bin := buildBadsim(t)
	tmp, out := t.TempDir(), filepath.Join(dir, "out")
	cmd := exec.Command(bin, "run", "-run-timeout", "8s", "-out", out, "lock/spin/healthy")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err == nil {
		t.Errorf("simrun exited 0 with a run that timed out")
	}
	var sum struct {
		Runs []struct {
			Dir   string `json:"dir"`
			Error string `json:"error"`
		} `json:"runs"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatalf("%v\n%s", err, &stderr)
	}
	if err := json.Unmarshal(b, &sum); err != nil || len(sum.Runs) != 1 {
		t.Fatalf("summary.json: %v, %d runs\n%s", err, len(sum.Runs), b)
	}
	run := sum.Runs[0]
	stopping, err := os.ReadFile(filepath.Join(out, run.Dir, "stopping.txt"))
	if err != nil {
		t.Errorf("no stopping.txt: %v", err)
	}
	for _, want := range []string{"timed out after 8s", "how far it got: bubble: lock/spin/healthy: the virtual clock stands at 00:00:",
		"the last event recorded: ", "ran most since the clock last moved: goroutine ", "main.spin.Lock (in "} {
		if !strings.Contains(run.Error, want) {
			t.Errorf("the run's error does not say %q: %s", want, run.Error)
		}
	}
	if !strings.Contains(string(stopping), "main.spin.Lock") {
		t.Errorf("stopping.txt does not name the spinning Lock: %s", stopping)
	}
	noChildLeft(t, filepath.Join(out, run.Dir))
	noTempLeft(t, tmp)
}
