package discovery

import (
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// RegistrarRecipe is a registrar that scenarios can run by name.
type RegistrarRecipe struct {
	// Name is how scenarios and simrun refer to the recipe.
	Name string `json:"name"`
	// Broken marks a deliberately broken recipe: scenarios expect its
	// violation instead of failing on it.
	Broken bool `json:"broken,omitempty"`
	// Pitfall is the recipe's number in issue 4's pitfall gallery; 0 for a
	// correct recipe.
	Pitfall int `json:"pitfall,omitempty"`
	// Summary says in one line what the recipe does.
	Summary string `json:"summary"`
	// New builds a registrar of the instance at addr of service.
	New func(cli *clientv3.Client, service, addr string, opts Options) (Registrar, error) `json:"-"`
}

// ResolverRecipe is a resolver that scenarios can run by name.
type ResolverRecipe struct {
	Name    string `json:"name"`
	Broken  bool   `json:"broken,omitempty"`
	Pitfall int    `json:"pitfall,omitempty"`
	Summary string `json:"summary"`
	// New builds a resolver of service.
	New func(cli *clientv3.Client, service string, opts Options) (Resolver, error) `json:"-"`
}

// Registrars returns every registrar recipe, correct ones first.
func Registrars() []RegistrarRecipe {
	return []RegistrarRecipe{
		{Name: "keepalive", New: NewKeepAlive,
			Summary: "endpoints manager record on a lease kept alive; registers again on a new lease when it is lost"},
		{Name: "noreregister", Broken: true, Pitfall: 12, New: NewNoReregister,
			Summary: "gives up when its lease is lost (go-zero #1926, kratos #3883): the instance vanishes from discovery"},
	}
}

// Resolvers returns every resolver recipe, correct ones first.
func Resolvers() []ResolverRecipe {
	return []ResolverRecipe{
		{Name: "relisting", New: NewRelisting,
			Summary: "linearizable listing and a watch that require a leader; lists again whenever the watch fails"},
		{Name: "stopsonerror", Broken: true, Pitfall: 13, New: NewStopsOnError,
			Summary: "etcd's naming resolver loop: stops for good on a watch error such as a compaction (etcd #9386, cilium #3011)"},
		{Name: "serializable", Broken: true, Pitfall: 14, New: NewSerializable,
			Summary: "serializable listings and no leader required: a partitioned member serves a stale set as current"},
	}
}

// LookupRegistrar returns the registrar recipe called name, or an error
// wrapping ErrUnknownRecipe that lists the names there are.
func LookupRegistrar(name string) (RegistrarRecipe, error) {
	var names []string
	for _, r := range Registrars() {
		if r.Name == name {
			return r, nil
		}
		names = append(names, r.Name)
	}
	return RegistrarRecipe{}, fmt.Errorf("%w %q among registrars; have %q", ErrUnknownRecipe, name, names)
}

// LookupResolver returns the resolver recipe called name, or an error
// wrapping ErrUnknownRecipe that lists the names there are.
func LookupResolver(name string) (ResolverRecipe, error) {
	var names []string
	for _, r := range Resolvers() {
		if r.Name == name {
			return r, nil
		}
		names = append(names, r.Name)
	}
	return ResolverRecipe{}, fmt.Errorf("%w %q among resolvers; have %q", ErrUnknownRecipe, name, names)
}
