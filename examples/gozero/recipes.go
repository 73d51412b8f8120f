package gozero

import "github.com/etcdsim/etcdsim/discovery"

// The recipes as etcdsim's scenario constructors take them.
var (
	Publisher = discovery.RegistrarRecipe{Name: "gozero-publisher", New: NewPublisher,
		Summary: "go-zero core/discov Publisher: the address on a lease kept alive, published again when the lease is lost"}
	Subscriber = discovery.ResolverRecipe{Name: "gozero-subscriber", New: NewSubscriber,
		Summary: "go-zero core/discov Subscriber: a listing and a watch, handed to gRPC as zrpc's discov builder does"}
)

// RealClock is why the go-zero scenarios need the real clock, for
// scenarios.Cluster.RealClock.
const RealClock = "go-zero dials etcd itself from the endpoints of a named client (cluster.Cluster.ClientEndpoints), over real sockets"
