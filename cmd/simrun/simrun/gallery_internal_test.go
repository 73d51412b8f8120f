package simrun

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
	"github.com/etcdsim/etcdsim/seed"
)

// The gallery gives every scenario that expects a violation
// scenarios.DetectionSeeds seeds, as the tests do, and every one that
// expects a pass one.
func TestGalleryJobsSeeds(t *testing.T) {
	if scenarios.DetectionSeeds < 2 {
		t.Fatalf("scenarios.DetectionSeeds is %d: the gallery would judge a pitfall on one seed", scenarios.DetectionSeeds)
	}
	jobs := galleryJobs(scenarios.All())
	broken := 0
	for _, j := range jobs {
		want := 1
		if !j.scenario.Expect.Pass() {
			want = scenarios.DetectionSeeds
			broken++
		}
		if j.seeds != want {
			t.Errorf("%s (expects %v): %d seeds, want %d", j.scenario.Name, j.scenario.Expect, j.seeds, want)
		}
	}
	if broken == 0 {
		t.Error("no registered scenario expects a violation")
	}
}

// A row found on its second seed is met: the exit code is 0, the run
// that missed is listed as retried with the seed tried next, and the
// table shows both seeds. Its last seed missing too is a miss.
func TestGalleryRowFoundOnALaterSeed(t *testing.T) {
	broken := "violation of mutual-exclusion (overlap)"
	viol := map[string]int{"mutual-exclusion": 1}
	s := &results.Summary{Command: "gallery", DetectionSeeds: 3, Planned: 2, Runs: []results.SummaryRun{
		{Name: "lock/setnx/crash-holder", Seed: 4, Expect: broken, Why: "expected overlap; none found", Retried: true},
		{Name: "lock/setnx/crash-holder", Seed: 5, Retry: 1, Expect: broken, Met: true, Violations: viol},
		{Name: "lock/mutex/contention", Seed: 1, Expect: "pass", Met: true},
	}}
	s.Aggregate()
	if got := exitCode(s); got != exitOK {
		t.Errorf("exit code %d, want %d: the row was found on its second seed", got, exitOK)
	}
	var b strings.Builder
	table(&b, s)
	out := b.String()
	for _, want := range []string{
		"up to 3 seeds",
		"retried: lock/setnx/crash-holder seed 4 missed (expected overlap; none found); seed 5 tried next",
		"4,5",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "missed: lock/setnx/crash-holder") {
		t.Errorf("the table calls a retried run missed:\n%s", out)
	}
	s.Runs[1].Met, s.Runs[1].Violations, s.Runs[1].Why = false, nil, "expected overlap; none found"
	s.Aggregate()
	if got := exitCode(s); got != exitMissed {
		t.Errorf("exit code %d, want %d: the row missed on its last seed", got, exitMissed)
	}
}

// A row that expects a violation its recipe never commits runs on the
// scenario's seed and the next ones, up to its seeds, each into a
// directory of its own, in the summary's order; a row that expects a pass
// runs once.
func TestBatchTriesTheNextSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs clusters")
	}
	var pass, never scenarios.Scenario
	for _, s := range scenarios.All() {
		if s.Name == "lock/mutex/contention" {
			pass = s
		}
	}
	if pass.Name == "" {
		t.Fatal("lock/mutex/contention is not registered")
	}
	pass.Workload.Duration = scenarios.Duration(time.Second)
	never = pass
	never.Name = "lock/mutex/contention-expects-overlap"
	never.Expect = checker.Expectation{Checker: checker.CheckerMutualExclusion, Violation: checker.ViolationOverlap}
	jobs := []job{{scenario: never, seeds: 3}, {scenario: pass, seeds: 1}}
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	e := &env{ctx: context.Background(), prog: "simrun", stdout: &stdout, stderr: &stderr}
	f := batchFlags{parallel: 2, out: out, inProcess: true}
	if err := f.check(e); err != nil {
		t.Fatal(err)
	}
	code, err := e.batch(jobs, f, results.Summary{Command: "gallery", DetectionSeeds: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if code != exitMissed {
		t.Errorf("exit code %d, want %d", code, exitMissed)
	}
	sum, err := results.ReadSummary(filepath.Join(out, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		Name         string
		Seed         seed.Seed
		Retry        int
		Retried, Met bool
	}
	var got []run
	for _, r := range sum.Runs {
		got = append(got, run{r.Name, r.Seed, r.Retry, r.Retried, r.Met})
	}
	s0 := never.Seed
	want := []run{
		{never.Name, s0, 0, true, false},
		{never.Name, s0 + 1, 1, true, false},
		{never.Name, s0 + 2, 2, false, false},
		{pass.Name, pass.Seed, 0, false, true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("runs:\n got %+v\nwant %+v\nstdout:\n%s", got, want, stdout.String())
	}
	if sum.Interrupted || sum.DetectionSeeds != 3 {
		t.Errorf("summary: interrupted %v, detection seeds %d; want false, 3", sum.Interrupted, sum.DetectionSeeds)
	}
	if !strings.Contains(stdout.String(), "missed: "+never.Name+" seed "+(s0+2).String()) {
		t.Errorf("stdout does not call the last seed missed:\n%s", stdout.String())
	}
}
