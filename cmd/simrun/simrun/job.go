package simrun

import (
	"fmt"
	"strings"
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

// validateJobs reports every job whose scenario cannot run, before any
// cluster starts.
func validateJobs(jobs []job) error {
	var msgs []string
	seen := map[string]bool{}
	for _, j := range jobs {
		if seen[j.label()] {
			continue
		}
		seen[j.label()] = true
		if err := j.scenario.Validate(); err != nil {
			msgs = append(msgs, fmt.Sprintf("%s: %v", j.label(), err))
		}
	}
	if len(msgs) > 0 {
		return fmt.Errorf("%s", strings.Join(msgs, "\n"))
	}
	return nil
}

func durationOf(d time.Duration) scenarios.Duration { return scenarios.Duration(d) }
