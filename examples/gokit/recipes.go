package gokit

import "github.com/etcdsim/etcdsim/discovery"

// The recipes as etcdsim's scenario constructors take them.
var (
	Registrar = discovery.RegistrarRecipe{Name: "gokit-registrar", New: NewRegistrar,
		Summary: "go-kit sd/etcdv3 Registrar: the instance on a lease its client keeps alive"}
	Instancer = discovery.ResolverRecipe{Name: "gokit-instancer", New: NewInstancer,
		Summary: "go-kit sd/etcdv3 Instancer: a listing on every watch event of the prefix"}
)
