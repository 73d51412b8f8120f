package gokit

import (
	"slices"

	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/scenarios"
)

// The recipes as etcdsim's scenario constructors take them.
var (
	Registrar = discovery.RegistrarRecipe{Name: "gokit-registrar", New: NewRegistrar,
		Summary: "go-kit sd/etcdv3 Registrar: the instance on a lease its client keeps alive"}
	Instancer = discovery.ResolverRecipe{Name: "gokit-instancer", New: NewInstancer,
		Summary: "go-kit sd/etcdv3 Instancer: a listing on every watch event of the prefix"}
)

// Scenarios returns go-kit's Registrar with etcdsim's resolver, its
// Instancer with etcdsim's registrar, and the two together, under every
// schedule of DiscoverySafety, on the virtual clock.
func Scenarios() []scenarios.Scenario {
	return slices.Concat(scenarios.DiscoverySafety(Registrar),
		scenarios.DiscoveryResolverSafety(Instancer),
		scenarios.DiscoveryPairSafety(Registrar, Instancer))
}
