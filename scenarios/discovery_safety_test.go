package scenarios_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Your own registrar plugs into the ready-made discovery scenarios by
// filling in a discovery.RegistrarRecipe. Here "ours" wraps the keepalive
// registrar; in the isolate-resolver-compact scenario a backend crashes and
// comes back on a new port while the resolver is cut off and etcd compacts
// what it missed: the resolver lists again, and DiscoveryConvergence finds
// it on the registered set.
func ExampleDiscoverySafety() {
	ours := discovery.RegistrarRecipe{Name: "ours", Summary: "our registrar",
		New: func(cli *clientv3.Client, service, addr string, opts discovery.Options) (discovery.Registrar, error) {
			return discovery.NewKeepAlive(cli, service, addr, opts)
		}}
	for _, s := range scenarios.DiscoverySafety(ours) {
		if s.Name != "discovery/ours/isolate-resolver-compact" {
			continue
		}
		res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(s.Name, "met:", res.Met)
	}
	// Output:
	// discovery/ours/isolate-resolver-compact met: true
}

// Your own resolver plugs in the same way, with the correct registrar
// beside it. In the reregister scenario every backend's lease is revoked
// in turn and its registrar deletes and puts the same key again while the
// resolver watches; "ours" applies the events in order and keeps every
// backend.
func ExampleDiscoveryResolverSafety() {
	ours := discovery.ResolverRecipe{Name: "ours", Summary: "our resolver",
		New: func(cli *clientv3.Client, service string, opts discovery.Options) (discovery.Resolver, error) {
			return discovery.NewRelisting(cli, service, opts)
		}}
	for _, s := range scenarios.DiscoveryResolverSafety(ours) {
		if s.Name != "discovery/ours/reregister" {
			continue
		}
		res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(s.Name, "met:", res.Met)
	}
	// Output:
	// discovery/ours/reregister met: true
}

// DiscoverySafety runs a user's registrar as a recipe value and one of the
// registry's by name, so that a result file of the latter replays.
func TestDiscoverySafetyRecipes(t *testing.T) {
	ours := discovery.RegistrarRecipe{Name: "ours", Summary: "our registrar", New: discovery.NewKeepAlive}
	keepalive, err := discovery.LookupRegistrar("keepalive")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		recipe discovery.RegistrarRecipe
		byName bool
	}{
		{name: "ours", recipe: ours},
		{name: "keepalive", recipe: keepalive, byName: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var names []string
			for _, s := range scenarios.DiscoverySafety(tt.recipe) {
				names = append(names, s.Name)
				if err := s.Validate(); err != nil {
					t.Error(err)
				}
				if got := s.Workload.Registrar == nil; got != tt.byName {
					t.Errorf("%s: registrar given by name: %v, want %v", s.Name, got, tt.byName)
				}
				if !s.Expect.Pass() {
					t.Errorf("%s expects %v, want a pass", s.Name, s.Expect)
				}
			}
			want := []string{"discovery/" + tt.name + "/standard-mix", "discovery/" + tt.name + "/isolate-resolver-compact",
				"discovery/" + tt.name + "/partition-each-member", "discovery/" + tt.name + "/revoke-lease",
				"discovery/" + tt.name + "/crash-backend", "discovery/" + tt.name + "/reregister"}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("scenario names (-want +got):\n%s", diff)
			}
		})
	}
}

// Each broken discovery recipe has a registered scenario that expects the
// violation its registry entry names, and, but for the registrar that
// never registers again (see DiscoverySafety), the correct recipes meet
// the same schedule with a pass, so that what fails is the recipe.
func TestDiscoveryPitfallsRegistered(t *testing.T) {
	byName := map[string]scenarios.Scenario{}
	for _, s := range scenarios.All() {
		byName[s.Name] = s
	}
	type brokenRecipe struct {
		name   string
		expect checker.Expectation
	}
	var broken []brokenRecipe
	for _, r := range discovery.Registrars() {
		if r.Broken {
			broken = append(broken, brokenRecipe{r.Name, r.Expect})
		}
	}
	for _, r := range discovery.Resolvers() {
		if r.Broken {
			broken = append(broken, brokenRecipe{r.Name, r.Expect})
		}
	}
	for _, b := range broken {
		n := 0
		for name, s := range byName {
			fault, ok := strings.CutPrefix(name, "discovery/"+b.name+"/")
			if !ok {
				continue
			}
			n++
			if s.Expect != b.expect {
				t.Errorf("%s expects %v, want %v", name, s.Expect, b.expect)
			}
			if _, ok := byName["discovery/keepalive/"+fault]; !ok {
				t.Errorf("%s has no twin discovery/keepalive/%s that passes the same schedule", name, fault)
			}
		}
		if n == 0 {
			t.Errorf("broken recipe %s has no registered scenario", b.name)
		}
	}
}

// DiscoveryResolverSafety runs a user's resolver with the correct
// registrar, and DiscoveryPairSafety a user's registrar and resolver
// together; each recipe that is not the registry's runs as a value, so
// that a child process or a replay takes it from the program's scenarios.
func TestDiscoveryResolverAndPairSafety(t *testing.T) {
	reg := discovery.RegistrarRecipe{Name: "my-registrar", Summary: "ours", New: discovery.NewKeepAlive}
	res := discovery.ResolverRecipe{Name: "my-resolver", Summary: "ours", New: discovery.NewRelisting}
	for _, tt := range []struct {
		name          string
		list          []scenarios.Scenario
		prefix        string
		ownRegistrar  bool
		wantRecipe    string
		wantResolvers string
	}{
		{name: "resolver", list: scenarios.DiscoveryResolverSafety(res), prefix: "discovery/my-resolver/",
			wantRecipe: "keepalive", wantResolvers: "my-resolver"},
		{name: "pair", list: scenarios.DiscoveryPairSafety(reg, res), prefix: "discovery/my-registrar+my-resolver/",
			ownRegistrar: true, wantRecipe: "my-registrar", wantResolvers: "my-resolver"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.list) != 6 {
				t.Errorf("%d scenarios, want the 6 of DiscoverySafety", len(tt.list))
			}
			for _, s := range tt.list {
				if !strings.HasPrefix(s.Name, tt.prefix) {
					t.Errorf("%s: want a name under %s", s.Name, tt.prefix)
				}
				if err := s.Validate(); err != nil {
					t.Error(err)
				}
				w := s.Workload
				if w.Recipe != tt.wantRecipe || w.Resolver != tt.wantResolvers {
					t.Errorf("%s: recipe %q, resolver %q; want %q, %q", s.Name, w.Recipe, w.Resolver, tt.wantRecipe, tt.wantResolvers)
				}
				if got := w.Registrar != nil; got != tt.ownRegistrar {
					t.Errorf("%s: registrar given as a value: %v, want %v", s.Name, got, tt.ownRegistrar)
				}
				if w.ResolverRecipe == nil || w.ResolverRecipe.Name != "my-resolver" {
					t.Errorf("%s: resolver value %v, want my-resolver", s.Name, w.ResolverRecipe)
				}
			}
		})
	}
}
