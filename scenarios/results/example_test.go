package results_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// A run leaves its files where RunDir puts them; a summary lists it; and
// the results directory reads back whole, every file checked against the
// others — what simrun does for each run of a batch, and reports and
// simrun campaign's resume read.
func Example() {
	dir, err := os.MkdirTemp("", "results-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	s, err := scenarios.Lookup("lock/unfenced/pause-holder")
	if err != nil {
		panic(err)
	}
	rel := results.RunDir(s.Name, "", s.Seed)
	res, err := scenarios.Run(context.Background(), s, scenarios.Options{Out: filepath.Join(dir, rel)})
	if err != nil {
		fmt.Println(err)
		return
	}
	sum := &results.Summary{Command: "run", Planned: 1, Runs: []results.SummaryRun{results.NewSummaryRun(res, "", rel)}}
	sum.Aggregate()
	if err := results.WriteSummary(dir, sum); err != nil {
		panic(err)
	}

	d, err := results.ReadDir(dir)
	if err != nil {
		panic(err)
	}
	for _, r := range d.Runs {
		fmt.Printf("%s: %s, expectation met: %v, whole history read back: %v\n", r.Dir, r.Result.Verdict, r.Result.Met, len(r.History.Ops) == res.Ops)
	}
	fmt.Println("detection:", d.Summary.Scenarios[0].Detection(), "unread:", len(d.Failed))
	// Output:
	// lock-unfenced-pause-holder/seed-1: violation, expectation met: true, whole history read back: true
	// detection: 100% unread: 0
}

// NewSummaryRun is what summary.json lists of a run: the golden summary's
// entry, but for the figures of the processes that ran it.
func ExampleNewSummaryRun() {
	r, err := results.ReadRun(filepath.Join("testdata", "golden", goldenRun))
	if err != nil {
		panic(err)
	}
	o := results.NewSummaryRun(r.Result, "golden", goldenRun)
	sum, err := results.ReadSummary(filepath.Join("testdata", "golden", results.SummaryFile))
	if err != nil {
		panic(err)
	}
	listed := sum.Runs[0]
	listed.Process, listed.Parent = nil, nil
	fmt.Println(o.Label(), o.Violations, *o.FirstViolation)
	fmt.Println("as listed:", fmt.Sprint(o) == fmt.Sprint(listed))
	// Output:
	// lock/unfenced/pause-holder[golden] map[mutual-exclusion:2] 2.6s
	// as listed: true
}
