package simrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
)

// TestCampaignEntrySeeds checks that a scenario entry's own seeds replace
// the file's for the scenarios it matches, and that the first entry to
// match a scenario decides its seeds.
func TestCampaignEntrySeeds(t *testing.T) {
	jobs := expandYAML(t, `scenarios:
  - match: lock/shared-session/healthy
    seeds: {base: 1, count: 4}
  - "lock/*/healthy"
  - match: lock/released-marker/healthy
    seeds: [7]
seeds: [100, 101]
`)
	got := map[string]int{}
	for _, j := range jobs {
		got[j.scenario.Name]++
	}
	if got["lock/shared-session/healthy"] != 4 {
		t.Errorf("lock/shared-session/healthy: %d runs, want its entry's 4 seeds", got["lock/shared-session/healthy"])
	}
	if got["lock/released-marker/healthy"] != 2 {
		t.Errorf("lock/released-marker/healthy: %d runs, want the file's 2 seeds (the pattern entry matched it first)", got["lock/released-marker/healthy"])
	}
}

// TestCampaignEntryErrors checks that a malformed scenario entry, and an
// entry with no seeds anywhere, are errors naming the line.
func TestCampaignEntryErrors(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown key", "scenarios:\n  - match: lock/\n    sedes: [1]\nseeds: [1]\n", "line 3: field sedes not found"},
		{"no match", "scenarios:\n  - seeds: [1]\n", "give the scenario name or pattern as match"},
		{"no seeds", "scenarios:\n  - lock/\n  - match: election/\n    seeds: [1]\n", "line 2: lock/ has no seeds"},
		{"list entry", "scenarios:\n  - [lock/]\nseeds: [1]\n", "line 2: scenario entry: want a name or pattern"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(f, []byte(c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readCampaign(f)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("readCampaign: %v; want an error containing %q", err, c.want)
			}
		})
	}
}

// expandYAML reads a campaign file written from text and expands it.
func expandYAML(t *testing.T, text string) []job {
	t.Helper()
	f := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
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
