package simrun

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
)

// TestPitfallsCampaign checks that the calibration campaign make pitfalls
// runs measures what it claims, and keeps doing so as scenarios are
// added: every registered scenario that expects a violation runs at
// least 20 times, and every correct recipe's standard fault mix and every
// upstream scenario that must pass (a fix) at least 50 times.
func TestPitfallsCampaign(t *testing.T) {
	c, err := readCampaign(filepath.Join("..", "campaigns", "pitfalls.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := c.expand(scenarios.All())
	if err != nil {
		t.Fatal(err)
	}
	if err := validateJobs(jobs); err != nil {
		t.Fatal(err)
	}
	runs := map[string]int{}
	for _, j := range jobs {
		runs[j.scenario.Name]++
	}
	for _, s := range scenarios.All() {
		switch {
		case !s.Expect.Pass() && runs[s.Name] < 20:
			t.Errorf("%s expects %v but the campaign runs it %d times; want at least 20", s.Name, s.Expect, runs[s.Name])
		case s.Expect.Pass() && (strings.HasSuffix(s.Name, "/standard-mix") || strings.HasPrefix(s.Name, "upstream/")) && runs[s.Name] < 50:
			t.Errorf("%s must pass but the campaign runs it %d times; want at least 50", s.Name, runs[s.Name])
		}
	}
	t.Logf("cmd/simrun/campaigns/pitfalls.yaml: %d runs", len(jobs))
}
