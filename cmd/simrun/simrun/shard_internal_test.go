package simrun

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// TestShardsPartitionTheCampaign expands a campaign and checks that its
// shards are disjoint, cover every run, and are the same on every
// expansion.
func TestShardsPartitionTheCampaign(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.yaml")
	yaml := `scenarios: ["lock/*/leader-kill", lock/shared-session/healthy]
seeds: {base: 10, count: 3}
members: [3, 5]
overrides:
  - name: quick
    duration: 2s
    faults: ["at 500ms for 1s: kill(leader)", "at 1800ms: compact"]
  - ttl: 2s
`
	if err := os.WriteFile(f, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	expand := func() []job {
		t.Helper()
		c, err := readCampaign(f)
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := c.expand(scenarios.All())
		if err != nil {
			t.Fatal(err)
		}
		return jobs
	}
	jobs := expand()
	if len(jobs)%(2*2*3) != 0 || len(jobs) == 0 {
		t.Fatalf("%d runs: want a multiple of 2 members × 2 overrides × 3 seeds", len(jobs))
	}
	if err := validateJobs(jobs); err != nil {
		t.Fatal(err)
	}
	h1, _ := campaignHash(jobs)
	h2, _ := campaignHash(expand())
	if h1 != h2 {
		t.Errorf("the campaign hash changed between expansions: %s, %s", h1, h2)
	}
	seen := map[string]int{}
	for i := range 3 {
		for _, j := range pickShard(results.Shard{Index: i, Count: 3}, jobs) {
			seen[j.dir()]++
		}
	}
	var dirs []string
	for _, j := range jobs {
		dirs = append(dirs, j.dir())
		if seen[j.dir()] != 1 {
			t.Errorf("run %s is in %d shards, want 1", j.dir(), seen[j.dir()])
		}
	}
	if len(seen) != len(jobs) || len(slices.Compact(slices.Sorted(slices.Values(dirs)))) != len(jobs) {
		t.Errorf("shards hold %d runs and %d directories for %d runs", len(seen), len(dirs), len(jobs))
	}
	q := jobs[slices.IndexFunc(jobs, func(j job) bool { return j.variant == "members-5-quick" })]
	if q.scenario.Cluster.Members != 5 || q.scenario.Workload.Duration.D().Seconds() != 2 || len(q.scenario.Faults.Timeline.Steps) != 2 {
		t.Errorf("members-5-quick run not overridden: %+v", q.scenario)
	}
}
