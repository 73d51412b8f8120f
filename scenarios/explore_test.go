package scenarios_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/internal/bubble"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// A configuration that cannot run is an error that names what is wrong,
// before any cluster starts.
func TestExploreRefusesABadConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  scenarios.ExploreConfig
		want string
	}{
		{"no budget", scenarios.ExploreConfig{Family: "lock", Recipe: "mutex"}, "no budget"},
		{"negative runs", scenarios.ExploreConfig{Family: "lock", Recipe: "mutex", Runs: -1}, "runs -1 is negative"},
		{"negative budget", scenarios.ExploreConfig{Family: "lock", Recipe: "mutex", Budget: -time.Second}, "budget -1s is negative"},
		{"unknown family", scenarios.ExploreConfig{Family: "mutexes", Recipe: "mutex", Runs: 1}, `unknown family "mutexes": want one of lock, election, discovery`},
		{"unknown recipe", scenarios.ExploreConfig{Family: "lock", Recipe: "nope", Runs: 1}, `no recipe named "nope"`},
		{"no recipe", scenarios.ExploreConfig{Family: "lock", Runs: 1}, "no recipe"},
		{"members contradict", scenarios.ExploreConfig{Family: "lock", Recipe: "mutex", Runs: 1, Space: scenarios.Space{MinMembers: 5, MaxMembers: 3}}, "min members 5 is above max members 3"},
		{"TTL contradicts", scenarios.ExploreConfig{Family: "lock", Recipe: "mutex", Runs: 1, Space: scenarios.Space{MinTTL: 4 * time.Second, MaxTTL: 2 * time.Second}}, "min TTL 4s is above max TTL 2s"},
		{"shard out of range", scenarios.ExploreConfig{Family: "lock", Recipe: "mutex", Runs: 1, Shard: 2, Shards: 2}, "shard 2/2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenarios.Explore(context.Background(), tc.cfg)
			if !errors.Is(err, scenarios.ErrExploreConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Explore: %v, want an ErrExploreConfig saying %q", err, tc.want)
			}
		})
	}
}

// tiny is a space of short runs, for the tests that check the machinery
// rather than a recipe.
var tiny = scenarios.Space{MinDuration: time.Second, MaxDuration: 2 * time.Second, MaxFaults: 1, MaxTTL: time.Second}

// An exploration into a directory that holds part of it resumes: the runs
// in its journal are not run again. Shards of one exploration merge into
// one findings summary.
//
// Its seven runs took 12 s under the race detector on an idle machine and
// 80 s at a load of 20 (a seventh of the package's time there), for a
// journal and a merge that one goroutine writes: make test runs it without the detector (REGISTRY_TESTS), and
// TestExploreTakesAnOwnRecipe gives the detector its look at an
// exploration.
func TestExploreResumesAndMerges(t *testing.T) {
	if scenarios.RaceDetector {
		t.Skip("make test runs it without the race detector (REGISTRY_TESTS)")
	}
	bubble.UseT(t)
	dir := t.TempDir()
	cfg := scenarios.ExploreConfig{Family: "lock", Recipe: "mutex", Seed: 5, Space: tiny, ShrinkRuns: -1, Shards: 2}
	var ran int
	cfg.Progress = func(scenarios.ExploreProgress) { ran++ }
	for i, runs := range []int{2, 3} {
		cfg.Runs, cfg.Out = runs, filepath.Join(dir, "shard0")
		ran = 0
		rep, err := scenarios.Explore(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Total != runs || (i == 1 && ran != 1) {
			t.Fatalf("sitting %d: %d runs in all, %d run now; want %d in all, 1 now on resume", i, rep.Total, ran, runs)
		}
		if i == 1 && (rep.Runs[0].Index != 0 || rep.Runs[2].Index != 4) {
			t.Errorf("shard 0 of 2 ran indices %d…%d, want 0, 2, 4", rep.Runs[0].Index, rep.Runs[2].Index)
		}
	}
	cfg.Shard, cfg.Runs, cfg.Out = 1, 2, filepath.Join(dir, "shard1")
	if _, err := scenarios.Explore(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Seed, other.Out = 6, filepath.Join(dir, "shard1")
	if _, err := scenarios.Explore(context.Background(), other); !errors.Is(err, scenarios.ErrExploreConfig) {
		t.Errorf("resuming another exploration's directory: %v, want it refused", err)
	}
	m, err := scenarios.MergeExplore(filepath.Join(dir, "merged"), filepath.Join(dir, "shard0"), filepath.Join(dir, "shard1"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Total != 5 {
		t.Errorf("merged %d runs, want 5", m.Total)
	}
	if _, err := os.Stat(filepath.Join(dir, "merged", "findings.md")); err != nil {
		t.Error(err)
	}
}

// The short exploration make test runs: a lock pitfall is found, blind —
// no schedule written for it — within a small budget, shrunk and grouped;
// and the careful mutex, explored for as many runs, is flagged by none.
//
// Under the race detector, which slows a run about tenfold, it is left to
// make test's second step, which runs it without.
func TestExploreFindsAPitfallAndFlagsNoCarefulLock(t *testing.T) {
	if scenarios.RaceDetector {
		t.Skip("make test runs it without the race detector (REGISTRY_TESTS)")
	}
	rep := exploreT(t, scenarios.ExploreConfig{Family: "lock", Recipe: "delete-name", Seed: 1, Runs: 40, UntilFound: true, ShrinkRuns: 3, Parallel: 2})
	if len(rep.Groups) == 0 {
		t.Fatalf("delete-name: no finding in %d runs", rep.Total)
	}
	g := rep.Groups[0]
	t.Logf("delete-name found at run %d: %s %s: %s; smallest %v; replay %s", rep.FirstFinding, g.Judge, g.Kind, g.Sentence, g.Shape, g.Replay)
	if g.Replay == "" || !strings.Contains(g.Replay, "replay") || g.Sentence == "" {
		t.Errorf("the group has no replay command or sentence: %+v", g)
	}
	if testing.Short() {
		t.Skip("the careful control is the long part")
	}
	ctl := exploreT(t, scenarios.ExploreConfig{Family: "lock", Recipe: "mutex", Seed: 1, Runs: 16, Parallel: 2})
	if err := ctl.Err(); err != nil {
		t.Errorf("the careful mutex was flagged: a hole in the judge rule or the space:\n%v", err)
	}
}

// exploreT runs cfg with the test as the bubbles' host, into a directory
// of the test's.
func exploreT(t *testing.T, cfg scenarios.ExploreConfig) *scenarios.ExploreReport {
	t.Helper()
	bubble.UseT(t)
	cfg.Out = t.TempDir()
	rep, err := scenarios.Explore(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A user's own lock goes in through the slot LockSafety uses. Under the
// race detector it explores one run, two at once otherwise (make test
// runs it whole in REGISTRY_TESTS).
func TestExploreTakesAnOwnRecipe(t *testing.T) {
	own, err := lock.Lookup("mutex")
	if err != nil {
		t.Fatal(err)
	}
	own.Name, own.Family = "my-mutex", ""
	runs := 2
	if scenarios.RaceDetector {
		runs = 1
	}
	rep := exploreT(t, scenarios.ExploreConfig{Family: "lock", Own: scenarios.Workload{Lock: &own}, Runs: runs, Space: tiny, Parallel: 2})
	if rep.Recipe != "my-mutex" || rep.Total != runs {
		t.Errorf("explored %q for %d runs, want my-mutex for %d", rep.Recipe, rep.Total, runs)
	}
}
