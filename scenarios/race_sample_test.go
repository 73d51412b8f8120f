package scenarios_test

import (
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
)

// The tests that run the whole registry (TestRegistered, the pitfalls'
// controls, TestUpstreamReproduces) are what makes the scenarios package
// slow: a hundred-odd runs of etcd members, most of them CPU-bound on the
// virtual clock, which the race detector slows about tenfold. Under -race
// they skip, and `make test` runs them all once more without it. What
// they prove is verdicts, which the detector does not change. The
// detector sees every family's workload, recorder and checkers in
// TestRecipeCloseEveryFamily (one run of each family but lock, each
// family's first safety scenario, 3 s of it) and TestRecipeClose (the
// lock family's): a run of a registered scenario is the same code with
// another schedule. (A sample of the registry, the shortest scenario of
// each family, took half the package's time under -race, nine runs of
// up to four minutes each at load 20.)

// skipUnderRace skips a test that runs registered scenarios, or runs them
// again with another recipe or expectation: `make test` runs it without
// the detector (REGISTRY_TESTS).
func skipUnderRace(t *testing.T) {
	t.Helper()
	if scenarios.RaceDetector {
		t.Skip("race detector on: the registry's runs go without it (make test runs them); TestRecipeCloseEveryFamily and TestRecipeClose run every family under it")
	}
}

// raceLeavesOut skips under -race a test, or one case of one, whose runs
// judge what the detector does not change (a verdict, a sentence) while
// another test already puts the same code under the detector — named in
// coveredBy. Make test runs it without the detector: its name is in the
// Makefile's REGISTRY_TESTS, which internal/layout's TestRaceListsAreKept
// checks.
func raceLeavesOut(t *testing.T, coveredBy string) {
	t.Helper()
	if scenarios.RaceDetector {
		t.Skip("race detector on: make test runs this without it (REGISTRY_TESTS); under it, " + coveredBy)
	}
}

// parallelWithoutRace runs a test beside the others, as the registry's
// runs are, without the race detector; under it, one at a time: four
// race-slowed clusters side by side on a loaded machine stalled one run's
// virtual clock past its watchdog (seen at load 25).
func parallelWithoutRace(t *testing.T) {
	t.Helper()
	if !scenarios.RaceDetector {
		t.Parallel()
	}
}
