package scenarios_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/scenarios"
)

// authLockScenario is a short lock scenario with auth on and the default
// users.
func authLockScenario() scenarios.Scenario {
	return scenarios.Scenario{
		Name:     "lock/mutex/auth-test",
		Cluster:  scenarios.Cluster{Members: 1, Auth: &scenarios.Auth{TokenTTL: scenarios.Duration(2 * time.Second)}},
		Workload: scenarios.Workload{Family: scenarios.FamilyLock, Recipe: "mutex", Clients: 2, Duration: scenarios.Duration(3 * time.Second)},
		Seed:     1,
	}
}

// Auth's zero value gives each client a user of its own, named after it,
// holding roles that grant exactly the recipe's key prefixes; the filled
// scenario round-trips through JSON, so a replay runs the same users.
func TestAuthDefaults(t *testing.T) {
	s := authLockScenario()
	s.Workload.Observers = 0
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(scenarios.WithDefaults(s))
	if err != nil {
		t.Fatal(err)
	}
	var back scenarios.Scenario
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	want := &scenarios.Auth{
		TokenTTL: scenarios.Duration(2 * time.Second),
		Roles:    []cluster.Role{{Name: "recipe-0", Prefix: "etcdsim/lock/L"}, {Name: "recipe-1", Prefix: "etcdsim/data/L"}},
		Users: []cluster.User{{Name: "c1", Password: "c1-password", Roles: []string{"recipe-0", "recipe-1"}},
			{Name: "c2", Password: "c2-password", Roles: []string{"recipe-0", "recipe-1"}}},
		Clients: map[string]string{"c1": "c1", "c2": "c2"},
	}
	if diff := cmp.Diff(want, back.Cluster.Auth); diff != "" {
		t.Errorf("the default auth, read back from JSON (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(back, scenarios.WithDefaults(back)); diff != "" {
		t.Errorf("a scenario read back is already complete; defaults changed it (-read +filled):\n%s", diff)
	}
	for _, tt := range []struct {
		name string
		w    scenarios.Workload
		want []string
	}{
		{"election", scenarios.Workload{Family: scenarios.FamilyElection}, []string{"E/"}},
		{"discovery", scenarios.Workload{Family: scenarios.FamilyDiscovery, Key: "api"}, []string{"api/"}},
		{"register", scenarios.Workload{Family: scenarios.FamilyRegister}, nil},
	} {
		if diff := cmp.Diff(tt.want, scenarios.KeyPrefixes(tt.w)); diff != "" {
			t.Errorf("%s: KeyPrefixes (-want +got):\n%s", tt.name, diff)
		}
	}
}

// Bad auth settings are refused before a cluster starts, each with an
// error naming the setting and what would be valid.
func TestAuthBadInput(t *testing.T) {
	explicit := func() *scenarios.Auth {
		return &scenarios.Auth{
			Roles:   []cluster.Role{{Name: "locks", Prefix: "etcdsim/"}},
			Users:   []cluster.User{{Name: "app", Password: "pw", Roles: []string{"locks"}}},
			Clients: map[string]string{"c1": "app", "c2": "app"},
		}
	}
	tests := []struct {
		name string
		edit func(*scenarios.Scenario)
		want []string
	}{
		{"a client with no credentials", func(s *scenarios.Scenario) {
			s.Cluster.Auth = explicit()
			delete(s.Cluster.Auth.Clients, "c2")
		}, []string{"cluster.auth.clients has no user for client c2", "needs credentials", "[app]"}},
		{"a role without the recipe's prefix", func(s *scenarios.Scenario) {
			s.Cluster.Auth = explicit()
			s.Cluster.Auth.Roles[0].Prefix = "other/"
		}, []string{"user app (client c1) may not read and write the recipe's keys under \"etcdsim/lock/L\"", "a role whose prefix is \"etcdsim/lock/L\" or a prefix of it"}},
		{"a read-only role for a client that writes", func(s *scenarios.Scenario) {
			s.Cluster.Auth = explicit()
			s.Cluster.Auth.Roles[0].ReadOnly = true
		}, []string{"user app (client c1) may not read and write"}},
		{"an unknown user", func(s *scenarios.Scenario) {
			s.Cluster.Auth = explicit()
			s.Cluster.Auth.Clients["c1"] = "ap"
		}, []string{`cluster.auth.clients[c1] is "ap", which cluster.auth.users does not define (users: [app])`}},
		{"a client as root", func(s *scenarios.Scenario) {
			s.Cluster.Auth = explicit()
			s.Cluster.Auth.Clients["c1"] = "root"
		}, []string{"cluster.auth.clients[c1] is root", "users of their own"}},
		{"a client the run lacks", func(s *scenarios.Scenario) {
			s.Cluster.Auth = explicit()
			s.Cluster.Auth.Clients["c7"] = "app"
		}, []string{`cluster.auth.clients names client "c7"`, "clients: [c1 c2]"}},
		{"a role no one defines", func(s *scenarios.Scenario) {
			s.Cluster.Auth = explicit()
			s.Cluster.Auth.Users[0].Roles = []string{"lock"}
		}, []string{`cluster.auth.users[0] (app) holds role "lock"`, "roles: [locks]"}},
		{"a user with no password", func(s *scenarios.Scenario) {
			s.Cluster.Auth = explicit()
			s.Cluster.Auth.Users[0].Password = ""
		}, []string{"cluster.auth.users[0] (app) has no password"}},
		{"an unknown token kind", func(s *scenarios.Scenario) { s.Cluster.Auth.Token = "oauth" }, []string{`cluster.auth.token "oauth"`, `"simple"`, `"jwt"`}},
		{"a token TTL not in seconds", func(s *scenarios.Scenario) { s.Cluster.Auth.TokenTTL = scenarios.Duration(1500 * time.Millisecond) }, []string{"cluster.auth.token_ttl 1.5s", "whole seconds"}},
		{"a family without auth", func(s *scenarios.Scenario) {
			s.Workload = scenarios.Workload{Family: scenarios.FamilyRegister}
		}, []string{"cluster.auth: the register family does not run with auth yet", "[lock election discovery]"}},
		{"a program recipe", func(s *scenarios.Scenario) {
			s.Workload.Command = []string{"./my-lock"}
		}, []string{"cluster.auth: workload.command's program", "no credentials"}},
		{"expire-token of an unknown user", func(s *scenarios.Scenario) {
			s.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{faults.At(time.Second, 0, faults.ExpireToken(faults.User("c9")))}}
		}, []string{`faults: timeline step 0 (expire-token(user c9)) names user "c9", which cluster.auth.users does not define; valid: root or one of [c1 c2]`}},
		{"expire-token with auth off", func(s *scenarios.Scenario) {
			s.Cluster.Auth = nil
			s.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{faults.At(time.Second, 0, faults.ExpireToken(faults.Client("c1")))},
				Triggers: []faults.Trigger{faults.On(faults.Match{Kind: checker.KindAcquire}, 0, faults.ExpireToken(faults.LockHolder("L")))}}
		}, []string{"faults: timeline step 0 (expire-token(client c1)) expires tokens, but auth is off: set cluster.auth",
			"faults: timeline trigger 0 (expire-token(lock-holder L)) expires tokens"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := authLockScenario()
			tt.edit(&s)
			err := s.Validate()
			if err == nil {
				t.Fatal("Validate accepted it")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

// A run with auth on: every recipe client speaks as its own user, limited
// to the recipe's keys, and the run is judged as without auth. Expiring
// the holder's token mid-run leaves the correct recipe correct.
func TestAuthRun(t *testing.T) {
	s := authLockScenario()
	s.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{faults.At(time.Second, 0, faults.ExpireToken(faults.AllClients))},
		Triggers: []faults.Trigger{faults.On(faults.Match{Kind: checker.KindAcquire, Key: "L"}, 0, faults.ExpireToken(faults.LockHolder("L")))}}
	s.Checkers = []scenarios.Check{{Name: checker.CheckerMutualExclusion, ResourceOnly: true}, {Name: checker.CheckerFencing}}
	res := scenarios.Test(t, s)
	expired := 0
	for _, f := range res.Faults {
		if f.Action == "expire-token" && f.Err == "" {
			expired++
		}
	}
	if expired < 2 {
		t.Errorf("%d expire-token faults went in; want the step's and the trigger's: %+v", expired, res.Faults)
	}
	if res.Ops == 0 {
		t.Error("the clients did nothing")
	}
}
