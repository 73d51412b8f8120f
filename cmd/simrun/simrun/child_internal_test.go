package simrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// TestReadChildResult breaks a child's result in each way a parent must
// refuse: none, truncated, another run's, without its history.
func TestReadChildResult(t *testing.T) {
	s := scenarios.Scenario{Name: "lock/mutex/healthy", Seed: 7}
	tests := []struct {
		name    string
		result  string // "" writes none
		history string // "" writes none
		want    []string
	}{
		{"none", "", "", []string{"result.json", "cannot be read"}},
		{"truncated", `{"version": 1, "scenario": {"name": "lock/mutex/heal`, "", []string{"result.json", "cannot be read"}},
		{"foreign", `{"version": 1, "scenario": {"name": "lock/v3lock/healthy", "seed": "7"}}`, `{"version": 1, "seed": "7", "scenario": "lock/v3lock/healthy"}`,
			[]string{"holds a run of lock/v3lock/healthy seed 7, not of lock/mutex/healthy seed 7"}},
		{"no history", `{"version": 1, "scenario": {"name": "lock/mutex/healthy", "seed": "7"}}`, "", []string{"history.json is missing", "cannot be read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.result != "" {
				if err := os.WriteFile(filepath.Join(dir, results.ResultFile), []byte(tt.result), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.history != "" {
				if err := os.WriteFile(filepath.Join(dir, results.HistoryFile), []byte(tt.history), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := readChildResult(dir, s)
			if err == nil {
				t.Fatal("readChildResult accepted it")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q: %v", w, err)
				}
			}
		})
	}
}

// TestChildScenario: a child takes a program's own recipe from the
// scenario of the same name, and every other field from the JSON.
func TestChildScenario(t *testing.T) {
	r := lock.Recipe{Name: "mine", New: func(*clientv3.Client, string, lock.Options) (lock.Locker, error) { return nil, nil }}
	own := scenarios.Scenario{Name: "lock/mine/healthy", Seed: 1,
		Workload: scenarios.Workload{Family: scenarios.FamilyLock, Recipe: "mine", Lock: &r}}
	job := own
	job.Seed, job.Cluster.Members, job.Workload.Lock = 9, 5, nil

	dir := t.TempDir()
	if err := prepareRunDir(dir, job); err != nil {
		t.Fatal(err)
	}
	got, err := childScenario(filepath.Join(dir, results.ScenarioFile), []scenarios.Scenario{own})
	if err != nil {
		t.Fatal(err)
	}
	if got.Workload.Lock != &r || got.Seed != 9 || got.Cluster.Members != 5 {
		t.Errorf("got recipe %p seed %s members %d; want %p, 9, 5", got.Workload.Lock, got.Seed, got.Cluster.Members, &r)
	}

	other := own
	other.Workload.Recipe = "theirs"
	if _, err := childScenario(filepath.Join(dir, results.ScenarioFile), []scenarios.Scenario{other}); err == nil || !strings.Contains(err.Error(), `recipe "theirs" here, but "mine"`) {
		t.Errorf("a scenario whose recipe differs in the child: %v", err)
	}
}

// A child takes a program's own resolver as it takes its registrar, and
// refuses a scenario whose resolver is another in the child.
func TestChildScenarioResolver(t *testing.T) {
	res := discovery.ResolverRecipe{Name: "my-resolver", New: discovery.NewRelisting}
	own := scenarios.DiscoveryResolverSafety(res)[0]
	job := own
	job.Seed, job.Workload.ResolverRecipe = 4, nil

	dir := t.TempDir()
	if err := prepareRunDir(dir, job); err != nil {
		t.Fatal(err)
	}
	got, err := childScenario(filepath.Join(dir, results.ScenarioFile), []scenarios.Scenario{own})
	if err != nil {
		t.Fatal(err)
	}
	if got.Workload.ResolverRecipe != own.Workload.ResolverRecipe || got.Seed != 4 {
		t.Errorf("got resolver %p seed %s; want %p, 4", got.Workload.ResolverRecipe, got.Seed, own.Workload.ResolverRecipe)
	}

	other := own
	other.Workload.ResolverRecipe = &discovery.ResolverRecipe{Name: "theirs", New: discovery.NewRelisting}
	if _, err := childScenario(filepath.Join(dir, results.ScenarioFile), []scenarios.Scenario{other}); err == nil || !strings.Contains(err.Error(), `resolver "theirs" here, but "my-resolver"`) {
		t.Errorf("a scenario whose resolver differs in the child: %v", err)
	}
}

// stillSchedule is a program's own fault schedule that injects nothing.
type stillSchedule struct{}

func (stillSchedule) Validate(*cluster.Cluster) error { return nil }
func (stillSchedule) Plan(context.Context, *faults.Env) ([]faults.Planned, error) {
	return nil, nil
}
func (stillSchedule) Arm(context.Context, *faults.Env) (func() error, error) {
	return func() error { return nil }, nil
}

// A child takes a program's own fault schedule, which JSON names but
// cannot carry, from the scenario of the same name; refuses a scenario
// whose schedule is another in the child; and leaves out a schedule the
// job no longer names (a campaign's override replaced it).
func TestChildScenarioSchedule(t *testing.T) {
	own, err := scenarios.Lookup("lock/mutex/leader-kill")
	if err != nil {
		t.Fatal(err)
	}
	own.Faults.Schedule, own.Faults.ScheduleName = stillSchedule{}, "still"
	job := own
	job.Seed, job.Faults.Schedule = 6, nil

	dir := t.TempDir()
	if err := prepareRunDir(dir, job); err != nil {
		t.Fatal(err)
	}
	got, err := childScenario(filepath.Join(dir, results.ScenarioFile), []scenarios.Scenario{own})
	if err != nil {
		t.Fatal(err)
	}
	if got.Faults.Schedule != own.Faults.Schedule || got.Faults.ScheduleName != "still" || got.Seed != 6 {
		t.Errorf("got schedule %v (%q) seed %s; want the program's own, \"still\", 6", got.Faults.Schedule, got.Faults.ScheduleName, got.Seed)
	}

	other := own
	other.Faults.ScheduleName = "noisy"
	if _, err := childScenario(filepath.Join(dir, results.ScenarioFile), []scenarios.Scenario{other}); err == nil || !strings.Contains(err.Error(), `fault schedule "noisy" here, but "still"`) {
		t.Errorf("a scenario whose schedule differs in the child: %v", err)
	}

	replaced := job
	replaced.Faults = scenarios.Faults{}
	if err := prepareRunDir(dir, replaced); err != nil {
		t.Fatal(err)
	}
	got, err = childScenario(filepath.Join(dir, results.ScenarioFile), []scenarios.Scenario{own})
	if err != nil {
		t.Fatal(err)
	}
	if got.Faults.Schedule != nil {
		t.Errorf("a job whose faults were replaced got the program's schedule back: %v", got.Faults.Schedule)
	}
}
