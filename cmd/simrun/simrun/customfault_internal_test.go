package simrun

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// customScenario is lock/mutex/contention, shortened, with a timeline
// step that fires a Custom fault counting its injections in n.
func customScenario(t *testing.T, n *atomic.Int32) scenarios.Scenario {
	t.Helper()
	var s scenarios.Scenario
	for _, r := range scenarios.All() {
		if r.Name == "lock/mutex/contention" {
			s = r
		}
	}
	if s.Name == "" {
		t.Fatal("lock/mutex/contention is not registered")
	}
	s.Name = "lock/mutex/custom-fault"
	s.Workload.Duration = scenarios.Duration(time.Second)
	flap := faults.Custom("flap", faults.Client("c1"), func(context.Context, *faults.Env, []string) (faults.Heal, error) {
		n.Add(1)
		return func(context.Context) error { return nil }, nil
	})
	s.Faults = scenarios.Faults{Timeline: &faults.Timeline{Steps: []faults.Step{faults.At(200*time.Millisecond, 300*time.Millisecond, flap)}}}
	return s
}

// A step holding a Custom fault is written to the run's files by name,
// and the run is judged — not a harness failure for a fault that "has no
// text form".
func TestCustomFaultRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster")
	}
	var n atomic.Int32
	s := customScenario(t, &n)
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), []string{"run", "-inprocess", "-out", out, s.Name}, &stdout, &stderr, s)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	if n.Load() != 1 {
		t.Errorf("the custom fault was injected %d times, want 1", n.Load())
	}
	r, err := results.ReadRun(filepath.Join(out, filepath.FromSlash(results.RunDir(s.Name, "", s.Seed))))
	if err != nil {
		t.Fatal(err)
	}
	st := r.Result.Scenario.Faults.Timeline.Steps[0]
	if !st.Fault.NameOnly() || st.Fault.String() != "flap(client c1)" {
		t.Errorf("result.json's step: %v (name only %v); want flap(client c1) by name", st.Fault, st.Fault.NameOnly())
	}
	if len(r.Result.Faults) != 1 || r.Result.Faults[0].Err != "" {
		t.Errorf("fault events %+v; want the custom fault's, without error", r.Result.Faults)
	}
}

// A scenario read back from JSON, as a child or a replay reads it, has its
// Custom faults by name only; the program's own scenario gives them their
// functions back.
func TestOwnCustomFaults(t *testing.T) {
	var n atomic.Int32
	own := customScenario(t, &n)
	b, err := json.Marshal(own)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"custom flap(client c1)"`) {
		t.Fatalf("the scenario's JSON does not name the custom fault:\n%s", b)
	}
	var s scenarios.Scenario
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if !s.Faults.Timeline.Steps[0].Fault.NameOnly() {
		t.Fatal("read back, the custom fault is not known by name only")
	}
	withOwnRecipe(&s, own)
	if f := s.Faults.Timeline.Steps[0].Fault; f.NameOnly() || !f.IsCustom() {
		t.Errorf("after withOwnRecipe the step's fault is %v, name only %v; want the program's own", f, f.NameOnly())
	}
}
