package simrun_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

// short is the scenario the real runs use: about 4 s on a healthy
// cluster, expecting the violation it provokes.
const short = "lock/shared-session/healthy"

func TestRunWritesResultsAndReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real cluster twice")
	}
	out := t.TempDir()
	code, stdout, stderr := simrunRun(t, "run", "-parallel", "1", "-out", out, short)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	run := filepath.Join(out, "lock-shared-session-healthy", "seed-1")
	for _, f := range []string{"result.json", "history.json"} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(stderr, "met    "+short+" seed=1") {
		t.Errorf("stderr has no line for the finished run:\n%s", stderr)
	}
	if !strings.Contains(stdout, "1/1") {
		t.Errorf("the summary table does not show 1/1 met:\n%s", stdout)
	}
	var sum struct {
		Runs []struct {
			Name string `json:"name"`
			Met  bool   `json:"met"`
			Dir  string `json:"dir"`
		} `json:"runs"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Runs) != 1 || sum.Runs[0].Name != short || !sum.Runs[0].Met {
		t.Errorf("summary.json runs = %+v, want one met run of %s", sum.Runs, short)
	}

	code, stdout, stderr = simrunRun(t, "replay", filepath.Join(run, "result.json"))
	if code != 0 || !strings.Contains(stdout, "reproduced") {
		t.Errorf("replay: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	// The recorded scenario, renamed and written to a file of its own, runs
	// with -f as it ran by name.
	res, err := results.ReadResult(filepath.Join(run, results.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Scenario
	s.Name = "lock/shared-session/from-file"
	file := filepath.Join(t.TempDir(), results.ScenarioFile)
	if err := results.WriteScenario(file, s); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = simrunRun(t, "run", "-parallel", "1", "-out", t.TempDir(), "-f", file)
	if code != 0 || !strings.Contains(stderr, "met    lock/shared-session/from-file seed=1") {
		t.Errorf("run -f: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
