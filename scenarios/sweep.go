package scenarios

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/seed"
)

// Sweep runs each scenario of list on seeds 1 to n, each as a subtest of
// t named runs/<name>/<seed> — in parallel with each other if parallel —
// and returns, once every run has ended, the results by scenario name in
// seed order. Each run is logged with its verdict, wall time and first
// sentence, and each of its recipe faults; a run the harness could not
// finish fails its subtest and is left out. It is for a test that asserts
// a rate: that a finding shows on at least one of n seeds, say (Found),
// since one run is no verdict on a pitfall that depends on timing.
func Sweep(t *testing.T, n int, parallel bool, list ...Scenario) map[string][]*Result {
	t.Helper()
	var mu sync.Mutex // guards out
	out := make(map[string][]*Result)
	t.Run("runs", func(t *testing.T) {
		for _, s := range Seeds(1, n, list...) {
			t.Run(s.Name+"/"+s.Seed.String(), func(t *testing.T) {
				if parallel {
					t.Parallel()
				}
				r, err := Run(context.Background(), s, Options{})
				if err != nil {
					t.Fatalf("harness: %v", err)
				}
				t.Logf("%s seed %s: %s in %v wall: %s", s.Name, s.Seed, r.Verdict, r.Timings.Wall.D().Round(time.Millisecond), firstSentence(r))
				for _, f := range r.RecipeFaults {
					t.Logf("%s seed %s: the recipe's fault: %s", s.Name, s.Seed, f)
				}
				mu.Lock()
				out[s.Name] = append(out[s.Name], r)
				mu.Unlock()
			})
		}
	})
	for _, rs := range out {
		slices.SortFunc(rs, func(a, b *Result) int { return cmp.Compare(a.Scenario.Seed, b.Scenario.Seed) })
	}
	return out
}

// Found returns the seeds of the results whose checker called name found
// a violation; name "" means any checker.
func Found(results []*Result, name checker.Name) []seed.Seed {
	var out []seed.Seed
	for _, r := range results {
		for _, c := range r.Checks {
			if (name == "" || c.Checker == name) && c.Verdict == checker.VerdictViolation {
				out = append(out, r.Scenario.Seed)
				break
			}
		}
	}
	return out
}

// firstSentence is the first violation's message, or the run's summary.
func firstSentence(r *Result) string {
	for _, c := range r.Checks {
		if len(c.Violations) > 0 {
			return c.Violations[0].Message
		}
	}
	return r.Why
}
