package simrun_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// TestCampaignRefusesAnotherDirectory: a campaign resumes only a directory
// of its own. Anything else is refused before a cluster starts, exit 2,
// with an error that names what the directory holds and what the
// campaign is.
func TestCampaignRefusesAnotherDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "campaign.yaml")
	if err := os.WriteFile(file, []byte("scenarios: [lock/shared-session/healthy]\nseeds: [1, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The campaign's hash, as it says it: refused by a directory of
	// another campaign.
	probe := t.TempDir()
	if err := results.WriteSummary(probe, &results.Summary{Command: "campaign", Campaign: "ffffffffffffffff", CampaignRuns: 9, Shards: []results.Shard{{Index: 0, Count: 1}}}); err != nil {
		t.Fatal(err)
	}
	_, _, stderr := simrunRun(t, "campaign", "-f", file, "-out", probe)
	m := regexp.MustCompile(`campaign ([0-9a-f]{16}): 2 runs in all`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("the campaign does not say its hash:\n%s", stderr)
	}
	hash := m[1]
	run := results.RunDir("lock/shared-session/healthy", "", 1)
	summary := func(s results.Summary) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			if err := results.WriteSummary(dir, &s); err != nil {
				t.Fatal(err)
			}
		}
	}
	file2 := func(rel, body string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	other, err := scenarios.Lookup("lock/shared-session/healthy")
	if err != nil {
		t.Fatal(err)
	}
	other.Seed, other.Cluster.Members = 1, 5
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  []string
	}{
		{"another campaign", summary(results.Summary{Command: "campaign", Campaign: "ffffffffffffffff", CampaignRuns: 9, Shards: []results.Shard{{Index: 0, Count: 1}}}),
			[]string{"it holds campaign ffffffffffffffff (9 runs), not campaign " + hash + " (2 runs) of " + file}},
		{"another shard", summary(results.Summary{Command: "campaign", Campaign: hash, CampaignRuns: 2, Shards: []results.Shard{{Index: 1, Count: 2}}}),
			[]string{"it holds shard 1/2 of campaign " + hash + ", not shard 0/1"}},
		{"another command", summary(results.Summary{Command: "run"}),
			[]string{"it holds the results of simrun run, not of a campaign to resume"}},
		{"a newer summary", file2(results.SummaryFile, `{"version": 9, "command": "campaign"}`),
			[]string{"summary.json has version 9; this etcdsim reads versions up to " + strconv.Itoa(results.SummaryVersion)}},
		{"a truncated summary", file2(results.SummaryFile, `{"version": 2, "command": "camp`),
			[]string{"cannot tell which campaign it holds", "summary.json: truncated"}},
		{"a run of another campaign", file2("lock-mutex-leader-kill/seed-1/"+results.ScenarioFile, "{}"),
			[]string{"it holds 1 runs that are not runs of campaign " + hash + " shard 0/1: lock-mutex-leader-kill/seed-1"}},
		{"another scenario in a run's place", func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(run)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := results.WriteScenario(filepath.Join(dir, filepath.FromSlash(run), results.ScenarioFile), other); err != nil {
				t.Fatal(err)
			}
		}, []string{run + "/scenario.json is not the scenario of the campaign's run lock/shared-session/healthy seed 1"}},
		{"a newer result", file2(run+"/"+results.ResultFile, `{"version": 99}`),
			[]string{run + "/result.json has version 99; this etcdsim reads versions up to " + strconv.Itoa(scenarios.SchemaVersion)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, dir)
			code, stdout, stderr := simrunRun(t, "campaign", "-f", file, "-out", dir)
			if code != 2 {
				t.Errorf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, w := range append(tt.want, "-out "+dir) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "resuming") || strings.Contains(stderr, "[1/") {
				t.Errorf("a refused directory was resumed:\n%s", stderr)
			}
		})
	}
}
