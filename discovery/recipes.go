package discovery

import (
	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/recipe"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// NewRegistrar builds a registrar of the instance at addr of service: the
// constructor every registrar recipe provides.
type NewRegistrar func(cli *clientv3.Client, service, addr string, opts Options) (Registrar, error)

// NewResolver builds a resolver of service: the constructor every resolver
// recipe provides.
type NewResolver func(cli *clientv3.Client, service string, opts Options) (Resolver, error)

// RegistrarRecipe is a registrar that scenarios can run by name, and
// ResolverRecipe a resolver: the registry type every recipe family shares,
// for discovery's two constructors.
// Its fields, documented on the internal type it names: Name (lower-case
// letters, digits and '-'), Summary (one line), New (the constructor);
// Broken, Expect (the checker and violation it must produce) and Upstream
// (the report's URL) for a deliberately broken one; Family may stay empty.
// A user's own:
//
//	discovery.RegistrarRecipe{Name: "my-registrar", Summary: "what it does", New: newMyRegistrar}
type (
	RegistrarRecipe = recipe.Recipe[NewRegistrar]
	ResolverRecipe  = recipe.Recipe[NewResolver]
)

var notConverged = checker.Expectation{Checker: checker.CheckerDiscoveryConvergence, Violation: checker.ViolationNotConverged}

var registrars = recipe.NewRegistry(recipe.Discovery,
	RegistrarRecipe{Name: "keepalive", New: NewKeepAlive,
		Summary: "endpoints manager record on a lease kept alive; registers again on a new lease when it is lost"},
	RegistrarRecipe{Name: "noreregister", Broken: true, New: newNoReregister, Expect: notConverged,
		Upstream: "https://github.com/zeromicro/go-zero/issues/1926",
		Summary:  "gives up when its lease is lost: the instance vanishes from discovery while it still serves"},
	RegistrarRecipe{Name: "oneretry", Broken: true, New: newOneRetry, Expect: notConverged,
		Upstream: "https://github.com/go-kratos/kratos/issues/3464",
		Summary:  "registers again once when its lease is lost, never twice: the second dip of a flapping network removes the instance for good"},
	RegistrarRecipe{Name: "rekey", Broken: true, New: newRekey,
		Expect:  checker.Expectation{Checker: checker.CheckerLeftBehind, Violation: checker.ViolationLeftBehind},
		Summary: "registers again under a new key whenever a renewal is slow, and keeps renewing the old one: the registry holds the instance twice"},
)

var resolvers = recipe.NewRegistry(recipe.Discovery,
	ResolverRecipe{Name: "relisting", New: NewRelisting,
		Summary: "linearizable listing and a watch that require a leader; lists again whenever the watch fails"},
	ResolverRecipe{Name: "stopsonerror", Broken: true, New: newStopsOnError, Expect: notConverged,
		Upstream: "https://github.com/etcd-io/etcd/issues/9386",
		Summary:  "etcd's naming resolver loop: stops for good on a watch error such as a compaction"},
	ResolverRecipe{Name: "serializable", Broken: true, New: newSerializable, Expect: notConverged,
		Summary: "serializable listings and no leader required: a partitioned member serves a stale set as current"},
	ResolverRecipe{Name: "debounced", Broken: true, New: newDebounced, Expect: notConverged,
		Summary: "gathers watch events per 100 ms window and applies its puts before its deletes: a key deleted and put " +
			"again within a window is dropped while its instance serves"},
)

// Registrars returns every registrar recipe, correct ones first.
func Registrars() []RegistrarRecipe { return registrars.All() }

// Resolvers returns every resolver recipe, correct ones first.
func Resolvers() []ResolverRecipe { return resolvers.All() }

// LookupRegistrar returns the registrar recipe called name, or an error
// wrapping ErrUnknownRecipe that lists the names there are.
func LookupRegistrar(name string) (RegistrarRecipe, error) {
	r, err := registrars.Lookup(name)
	if err != nil {
		return RegistrarRecipe{}, recipe.Unknown("discovery: registrar: ", ErrUnknownRecipe, err)
	}
	return r, nil
}

// LookupResolver returns the resolver recipe called name, or an error
// wrapping ErrUnknownRecipe that lists the names there are.
func LookupResolver(name string) (ResolverRecipe, error) {
	r, err := resolvers.Lookup(name)
	if err != nil {
		return ResolverRecipe{}, recipe.Unknown("discovery: resolver: ", ErrUnknownRecipe, err)
	}
	return r, nil
}
