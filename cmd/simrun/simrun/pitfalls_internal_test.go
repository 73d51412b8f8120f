package simrun

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
)

// TestPitfallsCampaign checks that the calibration campaign make pitfalls
// runs measures what it claims, and keeps doing so as scenarios are
// added: every registered scenario that expects a violation, every
// correct recipe's standard fault mix and every upstream scenario that
// must pass (a fix) runs at least calibrationRuns times, enough for a
// rate's 95 % lower bound to say something (100 of 100 bounds it at 96 %).
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
	const calibrationRuns = 100
	runs := map[string]int{}
	for _, j := range jobs {
		runs[j.scenario.Name]++
	}
	for _, s := range scenarios.All() {
		switch {
		case !s.Expect.Pass() && runs[s.Name] < calibrationRuns:
			t.Errorf("%s expects %v but the campaign runs it %d times; want at least %d", s.Name, s.Expect, runs[s.Name], calibrationRuns)
		case s.Expect.Pass() && (strings.HasSuffix(s.Name, "/standard-mix") || strings.HasPrefix(s.Name, "upstream/")) && runs[s.Name] < calibrationRuns:
			t.Errorf("%s must pass but the campaign runs it %d times; want at least %d", s.Name, runs[s.Name], calibrationRuns)
		}
	}
	t.Logf("cmd/simrun/campaigns/pitfalls.yaml: %d runs", len(jobs))
}
