package scenarios_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/scenarios"
)

// electionsScenario is an election scenario with auth on and the
// candidates split over two elections.
func electionsScenario() scenarios.Scenario {
	return scenarios.Scenario{
		Name:     "election/rechecked/elections-test",
		Cluster:  scenarios.Cluster{Members: 1, Auth: &scenarios.Auth{}},
		Workload: scenarios.Workload{Family: scenarios.FamilyElection, Recipe: "rechecked", Clients: 3, Elections: 2},
		Seed:     1,
	}
}

// With workload.elections 2, the clients take turns over elections E1
// and E2, and each default user holds only its own election's prefix.
func TestAuthDefaultsElections(t *testing.T) {
	s := electionsScenario()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"E1/", "E2/"}, scenarios.KeyPrefixes(s.Workload)); diff != "" {
		t.Errorf("KeyPrefixes (-want +got):\n%s", diff)
	}
	want := &scenarios.Auth{
		Roles: []cluster.Role{{Name: "recipe-0", Prefix: "E1/"}, {Name: "recipe-1", Prefix: "E2/"}},
		Users: []cluster.User{{Name: "c1", Password: "c1-password", Roles: []string{"recipe-0"}},
			{Name: "c2", Password: "c2-password", Roles: []string{"recipe-1"}},
			{Name: "c3", Password: "c3-password", Roles: []string{"recipe-0"}},
			{Name: "o1", Password: "o1-password", Roles: []string{"recipe-0"}}},
		Clients: map[string]string{"c1": "c1", "c2": "c2", "c3": "c3", "o1": "o1"},
	}
	if diff := cmp.Diff(want, scenarios.WithDefaults(s).Cluster.Auth); diff != "" {
		t.Errorf("the default auth (-want +got):\n%s", diff)
	}
}

// Bad settings of workload.elections are refused, each naming what would
// be valid: more elections than candidates, a family without elections,
// and a user who holds only another election's keys.
func TestElectionsBadInput(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*scenarios.Scenario)
		want string
	}{
		{"more elections than candidates", func(s *scenarios.Scenario) { s.Workload.Elections = 4 },
			"workload.elections 4: want 0 or 1 (one election) up to workload.clients (3)"},
		{"negative", func(s *scenarios.Scenario) { s.Workload.Elections = -1 }, "workload.elections -1"},
		{"a lock", func(s *scenarios.Scenario) {
			s.Workload = scenarios.Workload{Family: scenarios.FamilyLock, Recipe: "mutex", Elections: 2}
			s.Cluster.Auth = nil
		}, "workload.elections is for the election family only, not lock"},
		{"a user granted the other election", func(s *scenarios.Scenario) {
			s.Cluster.Auth = &scenarios.Auth{
				Roles:   []cluster.Role{{Name: "e1", Prefix: "E1/"}, {Name: "e2", Prefix: "E2/"}},
				Users:   []cluster.User{{Name: "a", Password: "p", Roles: []string{"e1"}}, {Name: "b", Password: "p", Roles: []string{"e1"}}},
				Clients: map[string]string{"c1": "a", "c2": "b", "c3": "a", "o1": "a"},
			}
		}, `user b (client c2) may not read and write the recipe's keys under "E2/"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := electionsScenario()
			tt.edit(&s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
