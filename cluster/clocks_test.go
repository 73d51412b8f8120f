package cluster

import (
	"testing"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// eachClock runs test once on each clock, in a subtest named after the
// clock: on the virtual clock in a bubble of its own, on the real clock
// outside one. It is for a mechanism whose parts differ between the
// clocks, so that passing on one says little of the other: a link is a
// proxy on loopback TCP sockets on the real clock and on in-memory
// connections on the virtual one; a peer proxy learns which member dialed
// from the peer's TLS certificate on the real clock and from the in-memory
// network on the virtual one; a member is an embedded etcd (etcd's embed
// package) on the real clock and an etcdserver built directly on the
// virtual one. Users run the virtual clock by default and the real one
// with Config.Clock or simrun -clock real.
func eachClock(t *testing.T, test func(t *testing.T, clock Clock)) {
	t.Helper()
	for _, clock := range Clocks() {
		t.Run(string(clock), func(t *testing.T) {
			if clock == ClockVirtual {
				bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) { test(t, clock) })
				return
			}
			test(t, clock)
		})
	}
}
