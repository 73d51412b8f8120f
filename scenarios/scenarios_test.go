package scenarios_test

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
)

// Every registered scenario meets its expectation: the correct recipes
// pass under faults, and each pitfall's violation is reported by the
// checker its recipe names.
func TestRegistered(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every registered scenario against real clusters")
	}
	skipUnderRace(t)
	var list []scenarios.Scenario
	for _, s := range scenarios.All() {
		if s.Upstream != nil && s.Upstream.Shows == scenarios.ShowsReport {
			continue // TestUpstreamReproduces runs it, and says what a miss may mean
		}
		list = append(list, s)
	}
	for _, s := range list {
		if s.Expect.Pass() {
			scenarios.TestParallel(t, s)
		} else {
			testFound(t, s)
		}
	}
}

// The registry is valid: unique names, every scenario valid, every broken
// recipe's expectation non-zero.
func TestRegistryIsValid(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range scenarios.All() {
		if seen[s.Name] {
			t.Errorf("scenario %s registered twice", s.Name)
		}
		seen[s.Name] = true
		if err := s.Validate(); err != nil {
			t.Errorf("%v", err)
		}
		if s.Description == "" {
			t.Errorf("%s has no description", s.Name)
		}
	}
}

func TestLookup(t *testing.T) {
	all := scenarios.All()
	s, err := scenarios.Lookup(all[0].Name)
	if err != nil || s.Name != all[0].Name {
		t.Fatalf("Lookup(%q) = %q, %v", all[0].Name, s.Name, err)
	}
	_, err = scenarios.Lookup("lock/unfencd/pause-holder")
	if err == nil || !strings.Contains(err.Error(), `no scenario named "lock/unfencd/pause-holder"; closest: lock/unfenced/pause-holder`) {
		t.Errorf("Lookup of a typo: %v", err)
	}
	got, err := scenarios.Match("lock/*/pause-holder")
	if err != nil || len(got) < 2 {
		t.Fatalf("Match(lock/*/pause-holder) = %d scenarios, %v", len(got), err)
	}
	for _, s := range got {
		if !strings.HasSuffix(s.Name, "/pause-holder") {
			t.Errorf("Match(lock/*/pause-holder) gave %s", s.Name)
		}
	}
	lockAll, err := scenarios.Match("lock/*")
	if err != nil || len(lockAll) == 0 {
		t.Fatalf("Match(lock/*): %d, %v", len(lockAll), err)
	}
}

// Bad scenarios are refused before any cluster starts, with an error that
// names the field and what would be valid.
func TestValidateBadInput(t *testing.T) {
	good := func() scenarios.Scenario {
		s, err := scenarios.Lookup("lock/mutex/leader-kill")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name string
		edit func(*scenarios.Scenario)
		want []string
	}{
		{"unknown recipe", func(s *scenarios.Scenario) { s.Workload.Recipe = "mutx" }, []string{"workload.recipe", `"mutx"`, "have mutex"}},
		{"unknown family", func(s *scenarios.Scenario) { s.Workload.Family = "locks" }, []string{`workload.family "locks"`, "lock"}},
		{"ttl not whole seconds", func(s *scenarios.Scenario) { s.Workload.TTL = scenarios.Duration(1500e6) }, []string{"workload.ttl", "1.5s", "whole number of seconds", "use 1s or 2s"}},
		{"ttl below a second", func(s *scenarios.Scenario) { s.Workload.TTL = scenarios.Duration(500e6) }, []string{"workload.ttl", "500ms", "at least 1s"}},
		{"too many members", func(s *scenarios.Scenario) { s.Cluster.Members = 12 }, []string{"cluster.members 12", "1 to 9"}},
		{"negative client keepalive", func(s *scenarios.Scenario) { s.Cluster.ClientKeepAliveTime = scenarios.Duration(-1e9) },
			[]string{"cluster.client_keepalive_time -1s", "neither may be negative", "0 means no pings"}},
		{"an unknown feature gate", func(s *scenarios.Scenario) { s.Cluster.FeatureGates = "FastLeaseKeepAliv=false" },
			[]string{`cluster.feature_gates "FastLeaseKeepAliv=false"`, "FastLeaseKeepAlive="}},
		{"a keepalive timeout without pings", func(s *scenarios.Scenario) { s.Cluster.ClientKeepAliveTimeout = scenarios.Duration(2e9) },
			[]string{"cluster.client_keepalive_timeout is 2s", "client_keepalive_time is 0", "set both"}},
		{"fault at a member the cluster lacks", func(s *scenarios.Scenario) {
			s.Cluster.Members = 3
			s.Faults.Timeline.Steps[0].Fault = mustParse(t, "kill(m7)")
		}, []string{"faults:", "no member m7"}},
		{"fault at a client the workload lacks", func(s *scenarios.Scenario) {
			s.Faults.Timeline.Steps[0].Fault = mustParse(t, "crash(client c9)")
		}, []string{"faults:", `no client "c9"`}},
		{"threads outside the lock family", func(s *scenarios.Scenario) {
			s.Workload = scenarios.Workload{Family: scenarios.FamilyElection, Recipe: "rechecked", Threads: 2}
			s.Checkers, s.Faults = nil, scenarios.Faults{}
		}, []string{"workload.threads", "lock family only", "not election"}},
		{"more threads than clients allowed", func(s *scenarios.Scenario) { s.Workload.Threads = 40 }, []string{"workload.threads 40", "1 to 64 threads in all (3 clients)"}},
		{"negative writes", func(s *scenarios.Scenario) { s.Workload.Writes = -1 }, []string{"workload.writes -1", "1 to 1000"}},
		{"stagger outside the barrier family", func(s *scenarios.Scenario) { s.Workload.Stagger = scenarios.Duration(1e9) }, []string{"workload.stagger", "barrier family only", "not lock"}},
		{"negative stagger", func(s *scenarios.Scenario) { s.Workload.Stagger = scenarios.Duration(-1e9) }, []string{"workload.stagger -1s", "negative"}},
		{"readers outside the register family", func(s *scenarios.Scenario) { s.Workload.Readers = 1 }, []string{"workload.readers", "register and rwmutex families only", "not lock"}},
		{"producers outside the queue family", func(s *scenarios.Scenario) { s.Workload.Producers = 1 }, []string{"workload.producers", "queue family only", "not lock"}},
		{"no consumer", func(s *scenarios.Scenario) {
			s.Workload = scenarios.Workload{Family: scenarios.FamilyQueue, Recipe: "claimed", Clients: 2, Producers: 2}
			s.Checkers, s.Faults = nil, scenarios.Faults{}
		}, []string{"workload.producers 2", "1 to workload.clients-1 (2 clients; 0 means half), so that someone consumes"}},
		{"negative priorities", func(s *scenarios.Scenario) {
			s.Workload = scenarios.Workload{Family: scenarios.FamilyQueue, Recipe: "priority-claimed", Priorities: -2}
			s.Checkers, s.Faults = nil, scenarios.Faults{}
		}, []string{"workload.priorities -2", "0 (a FIFO queue) to 65536"}},
		{"unknown queue recipe", func(s *scenarios.Scenario) {
			s.Workload = scenarios.Workload{Family: scenarios.FamilyQueue, Recipe: "claimd"}
			s.Checkers, s.Faults = nil, scenarios.Faults{}
		}, []string{"workload.recipe", `"claimd"`, "claimed"}},
		{"more readers than clients", func(s *scenarios.Scenario) {
			s.Workload = scenarios.Workload{Family: scenarios.FamilyRegister, Clients: 2, Readers: 3}
			s.Checkers, s.Faults = nil, scenarios.Faults{}
		}, []string{"workload.readers 3", "0 to workload.clients (2)"}},
		{"unknown register KV", func(s *scenarios.Scenario) {
			s.Workload = scenarios.Workload{Family: scenarios.FamilyRegister, Recipe: "leased"}
			s.Checkers, s.Faults = nil, scenarios.Faults{}
		}, []string{`register: no recipe named "leased"`, "have leasing, kv, ordering"}},
		{"unknown owner check", func(s *scenarios.Scenario) { s.Workload.OwnerCheck = "lease" }, []string{`workload.owner_check "lease"`, `"done", "read" or "keepalive"`}},
		{"unknown checker", func(s *scenarios.Scenario) { s.Checkers = []scenarios.Check{{Name: "mutex"}} }, []string{"checkers[0]", `"mutex"`}},
		{"expectation no checker of the run makes", func(s *scenarios.Scenario) {
			s.Expect.Checker, s.Expect.Violation = "liveness", "starvation"
			s.Checkers = []scenarios.Check{{Name: "fencing"}}
		}, []string{"expect: violation of liveness (starvation)", "do not include liveness"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good()
			tt.edit(&s)
			err := s.Validate()
			if err == nil {
				t.Fatalf("Validate: no error, want one saying %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate: %v\nwant it to say %q", err, w)
				}
			}
		})
	}
}
