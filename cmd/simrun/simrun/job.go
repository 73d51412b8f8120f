package simrun

import (
	"errors"
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
	"github.com/etcdsim/etcdsim/seed"
)

// job is one run to do: a scenario with its seed and overrides applied.
type job struct {
	scenario scenarios.Scenario
	// variant names the overrides a campaign applied ("members-5",
	// "override-1"); "" for none.
	variant string
	// seeds is how many seeds, from the scenario's, the job may try
	// before its row is called missed: the gallery gives a scenario that
	// expects a violation scenarios.DetectionSeeds, as the tests do; 0
	// and 1 mean one. A run that misses is followed by one on the next
	// seed, until one meets its expectation or the seeds are used up.
	seeds int
	// retry is which of those seeds this run is: 0 for the scenario's
	// own, 1 for the next, ….
	retry int
}

// next returns the job of the next seed after j's run missed, and whether
// j may try one.
func (j job) next() (job, bool) {
	if j.retry+1 >= j.seeds {
		return job{}, false
	}
	n := j
	n.retry++
	n.scenario.Seed++
	return n, true
}

// dir is where the job's files go, relative to the output directory and
// slash-separated (results.RunDir).
func (j job) dir() string { return results.RunDir(j.scenario.Name, j.variant, j.scenario.Seed) }

// key orders jobs stably: by name, variant, then seed as a number.
func (j job) key() string {
	return fmt.Sprintf("%s\x00%s\x00%020d", j.scenario.Name, j.variant, uint64(j.scenario.Seed))
}

// label is how the job is named in progress lines and the summary.
func (j job) label() string { return results.Label(j.scenario.Name, j.variant) }

// seeds returns n seeds from base: base, base+1, ….
func seeds(base seed.Seed, n int) []seed.Seed {
	out := make([]seed.Seed, n)
	for i := range out {
		out[i] = base + seed.Seed(i)
	}
	return out
}

// validateJobs reports every job whose scenario cannot run, each finding
// on a line of its own, and every program of a workload command that
// cannot be started, before any cluster starts.
func validateJobs(jobs []job) error {
	var errs []error
	seen := map[string]bool{}
	for _, j := range jobs {
		if seen[j.label()] {
			continue
		}
		seen[j.label()] = true
		if err := j.scenario.Validate(); err != nil {
			for _, f := range findings(j.scenario.Name, err) {
				errs = append(errs, fmt.Errorf("%s: %s", j.label(), f))
			}
		}
	}
	return errors.Join(append(errs, checkPrograms(jobs))...)
}

func durationOf(d time.Duration) scenarios.Duration { return scenarios.Duration(d) }
