package gozero

import "github.com/etcdsim/etcdsim/discovery"

// The recipes as etcdsim's scenario constructors take them.
var (
	Publisher = discovery.RegistrarRecipe{Name: "gozero-publisher", New: NewPublisher,
		Summary: "go-zero core/discov Publisher: the address on a lease kept alive, published again when the lease is lost"}
	PublisherWithID = discovery.RegistrarRecipe{Name: "gozero-publisher-id", New: NewPublisherWithID,
		Summary: "go-zero core/discov Publisher with discov.WithId: one key per instance, whatever lease go-zero takes"}
	Subscriber = discovery.ResolverRecipe{Name: "gozero-subscriber", New: NewSubscriber,
		Summary: "go-zero core/discov Subscriber: a listing and a watch, handed to gRPC as zrpc's discov builder does"}
)

// RealClock is why the go-zero scenarios need the real clock, for
// scenarios.Cluster.RealClock: asking for the virtual clock is refused
// with it.
const RealClock = "go-zero keeps its etcd clients in a process-wide cache that nothing closes, so their goroutines " +
	"(clientv3's autoSync and lease keep-alive loops, watch streams, go-zero's internal.(*stateWatcher).watch) never return, " +
	"and a run on the virtual clock ends only once every goroutine it started has: run go-zero on the real clock"
