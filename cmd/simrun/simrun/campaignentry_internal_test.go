package simrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/google/go-cmp/cmp"
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
		{"unknown key", "scenarios:\n  - match: lock/\n    sedes: [1]\nseeds: [1]\n", `line 3: unknown field "sedes"; valid fields: match, seeds`},
		{"no match", "scenarios:\n  - seeds: [1]\n", "give the scenario name or pattern as match"},
		{"no seeds", "scenarios:\n  - lock/\n  - match: election/\n    seeds: [1]\n", "line 2: lock/ has no seeds"},
		{"list entry", "scenarios:\n  - [lock/]\nseeds: [1]\n", "line 2: scenario entry: want a name or pattern"},
		{"fault step in another order", "scenarios: [lock/]\nseeds: [1]\noverrides:\n  - faults: [\"kill(leader) at 1s for 2s\"]\n",
			`line 4: faults: parse step "kill(leader) at 1s for 2s": no ":" before the fault; write "at <time>[ for <duration>]: <fault>"`},
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

// TestCampaignFileErrors checks that a bad campaign file is an error that
// names the line and what would be valid, never a Go type: an empty file,
// an unknown field at the top or in an override, a value of the wrong
// kind, a bad duration, members below 1.
func TestCampaignFileErrors(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"empty", "", "holds no campaign (it is empty, or all comments): a campaign names its scenarios and seeds"},
		{"comments only", "# to do\n", "holds no campaign"},
		{"unknown field", "scenarios: [lock/]\nseeds: [1]\nbogus: 3\n",
			`line 3: unknown field "bogus" in a campaign; valid fields: scenarios, seeds, members, overrides`},
		{"unknown override field", "scenarios: [lock/]\nseeds: [1]\noverrides:\n  - name: x\n    durashun: 3s\n",
			`line 5: unknown field "durashun" in an override; valid fields: name, duration, clients, ttl, latency, auth, faults`},
		{"bad duration", "scenarios: [lock/]\nseeds: [1]\noverrides:\n  - duration: 3 s\n", `line 4: duration "3 s": want Go's duration text`},
		{"bad ttl", "scenarios: [lock/]\nseeds: [1]\noverrides:\n  - ttl: soon\n", `line 4: `},
		{"clients not a number", "scenarios: [lock/]\nseeds: [1]\noverrides:\n  - clients: four\n", `line 4: clients: "four": want a whole number of clients`},
		{"members 0", "scenarios: [lock/]\nseeds: [1]\nmembers: 0\n", "line 3: members: want a list of member counts, such as [3, 5]"},
		{"members [0]", "scenarios: [lock/]\nseeds: [1]\nmembers: [3,\n  0]\n", "line 4: members: 0: want at least 1"},
		{"seeds not a list", "scenarios: [lock/]\nseeds: many\n", "line 2: seeds: want a list such as [1, 2, 3] or {base: 1, count: 10}"},
		{"scenarios not a list", "scenarios: lock/\nseeds: [1]\n", "line 1: scenarios: want a list of names or patterns"},
		{"not a mapping", "- lock/\n", "line 1: a campaign is a mapping of scenarios, seeds, members, overrides"},
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
			for _, bad := range []string{"simrun.", "!!", "[]int", "EOF", "unmarshal"} {
				if strings.Contains(err.Error(), bad) {
					t.Errorf("the error says %q, which is Go's or YAML's, not the user's: %v", bad, err)
				}
			}
		})
	}
}

// TestCampaignReadsStepText checks that a campaign's faults are read in
// the text form faults.Step.String writes: steps written out as text read
// back as the same steps.
func TestCampaignReadsStepText(t *testing.T) {
	steps := []faults.Step{
		faults.At(500*time.Millisecond, time.Second, faults.Kill(faults.Leader)),
		faults.At(2*time.Second, 1500*time.Millisecond, faults.Delay(faults.Client("c1"), 20*time.Millisecond, 5*time.Millisecond)),
		faults.At(4*time.Second, 0, faults.Compact()),
	}
	text := "scenarios: [lock/mutex/leader-kill]\nseeds: [1]\noverrides:\n  - faults:\n"
	for _, st := range steps {
		text += fmt.Sprintf("      - %q\n", st.String())
	}
	f := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := readCampaign(f)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, st := range steps {
		want = append(want, st.String())
	}
	for _, st := range *c.Overrides[0].Faults {
		got = append(got, faults.Step(st.v).String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps read back (-want +got):\n%s", diff)
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

// TestCampaignOverrideTTL checks that an override's ttl plays the
// scenario at that TTL — its fault times and its liveness bound scaled
// with it, a duration the override sets outright kept — and that
// "observed" leaves the TTL to the recipe's grants.
func TestCampaignOverrideTTL(t *testing.T) {
	jobs := expandYAML(t, `scenarios: [election/rechecked/crash-mid-term]
seeds: [1]
overrides:
  - name: six
    ttl: 6s
  - name: six-short
    ttl: 6s
    duration: 50s
  - name: mine
    ttl: observed
`)
	byVariant := map[string]scenarios.Scenario{}
	for _, j := range jobs {
		byVariant[j.variant] = j.scenario
	}
	six := byVariant["six"]
	if six.Workload.TTL.D() != 6*time.Second || six.Workload.Duration.D() != 60*time.Second {
		t.Errorf("six: ttl %v, duration %v; want 6s and 60s (10s × 6)", six.Workload.TTL, six.Workload.Duration)
	}
	if st := six.Faults.Timeline.Steps[0]; st.At != 9*time.Second || st.For != 6*time.Second {
		t.Errorf("six: the crash is at %v for %v; want at 9s for 6s", st.At, st.For)
	}
	if d := byVariant["six-short"].Workload.Duration.D(); d != 50*time.Second {
		t.Errorf("six-short: duration %v; want the override's 50s", d)
	}
	if mine := byVariant["mine"]; !mine.Workload.ObservedTTL || mine.Workload.TTL.D() == 6*time.Second {
		t.Errorf("mine: observed_ttl %v, ttl %v; want the recipe's grants to decide", mine.Workload.ObservedTTL, mine.Workload.TTL)
	}
}

// TestCampaignOverrideLatency checks that an override's latency sets every
// link's delay of the variant it names and leaves the scenario's own in
// the others, and that a negative one is refused on its line.
func TestCampaignOverrideLatency(t *testing.T) {
	jobs := expandYAML(t, `scenarios: [lock/mutex/standard-mix]
seeds: [1]
overrides:
  - name: as-written
  - name: wire
    latency: 2ms
`)
	byVariant := map[string]scenarios.Scenario{}
	for _, j := range jobs {
		byVariant[j.variant] = j.scenario
	}
	if d := byVariant["wire"].Cluster.Latency.D(); d != 2*time.Millisecond {
		t.Errorf("wire: latency %v; want the override's 2ms", d)
	}
	if d := byVariant["as-written"].Cluster.Latency.D(); d != 0 {
		t.Errorf("as-written: latency %v; want the scenario's own 0", d)
	}
	f := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(f, []byte("scenarios: [lock/]\nseeds: [1]\noverrides:\n  - latency: -2ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readCampaign(f); err == nil || !strings.Contains(err.Error(), "line 4: overrides[0].latency -2ms: must not be negative") {
		t.Errorf("readCampaign with latency -2ms: %v; want the line and that it must not be negative", err)
	}
}
