package scenarios_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
)

// The tests that run the whole registry (TestRegistered, the pitfalls'
// controls, TestUpstreamReproduces) are what makes the scenarios package
// slow: a hundred-odd runs of etcd members, most of them CPU-bound on the
// virtual clock, which the race detector slows about tenfold. Under -race
// they run a sample — the shortest scenario of each family, enough to
// put every family's workload, recorder and checkers under the detector —
// and `make test` runs them all once more without it. What they prove is
// verdicts, which the detector does not change.

// raceSample returns list as it is, or under -race the shortest scenario
// of each family in it (the first by name among equals), logging what it
// left out.
func raceSample(t *testing.T, list []scenarios.Scenario) []scenarios.Scenario {
	t.Helper()
	if !scenarios.RaceDetector {
		return list
	}
	best := map[string]scenarios.Scenario{}
	for _, s := range list {
		f := s.Workload.Family
		b, ok := best[f]
		if !ok || s.Workload.Duration < b.Workload.Duration ||
			(s.Workload.Duration == b.Workload.Duration && s.Name < b.Name) {
			best[f] = s
		}
	}
	var out []scenarios.Scenario
	for _, s := range best {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b scenarios.Scenario) int { return cmp.Compare(a.Name, b.Name) })
	t.Logf("race detector on: %d of %d scenarios, the shortest of each family; make test runs them all without it",
		len(out), len(list))
	return out
}

// skipUnderRace skips a test that only runs registered scenarios again
// with another recipe or expectation: under -race, raceSample's runs
// cover the same workloads, and `make test` runs this test without it.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if scenarios.RaceDetector {
		t.Skip("race detector on: the registry's runs go without it (make test runs them); the sample in TestRegistered covers these workloads")
	}
}
