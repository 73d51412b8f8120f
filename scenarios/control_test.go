package scenarios_test

import (
	"encoding/json"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// A scenario that names its Control names a registered scenario of its
// family, with its schedule, that expects a pass: the control the lock
// pitfalls' control test leaves it to.
func TestControlsAreRegistered(t *testing.T) {
	byName := map[string]scenarios.Scenario{}
	for _, s := range scenarios.All() {
		byName[s.Name] = s
	}
	named := 0
	for _, s := range scenarios.All() {
		if s.Control == "" {
			continue
		}
		named++
		c, ok := byName[s.Control]
		switch {
		case !ok:
			t.Errorf("%s: its control %q is not registered", s.Name, s.Control)
		case c.Expect != (checker.Expectation{}):
			t.Errorf("%s: its control %s expects %s, not a pass", s.Name, c.Name, c.Expect)
		case c.Workload.Family != s.Workload.Family:
			t.Errorf("%s: its control %s is of family %s, not %s", s.Name, c.Name, c.Workload.Family, s.Workload.Family)
		case faultsJSON(t, c) != faultsJSON(t, s):
			t.Errorf("%s: its control %s runs faults %s, not %s", s.Name, c.Name, faultsJSON(t, c), faultsJSON(t, s))
		}
	}
	if named == 0 {
		t.Error("no scenario names its control; etcd PR #21126's reproduction should")
	}
}

// faultsJSON is s's fault schedule as its files carry it.
func faultsJSON(t *testing.T, s scenarios.Scenario) string {
	t.Helper()
	b, err := json.Marshal(s.Faults)
	if err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	return string(b)
}
