package cluster

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"google.golang.org/grpc"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// Clock is the clock a cluster's members, clients and network run on.
//
// On the real clock the members are embedded etcd servers (etcd's embed
// package) on loopback sockets, and a run waits on the wall clock. On the
// virtual clock the members are the same etcd server code, built from
// etcdserver directly, on an in-memory network; the cluster must be started
// inside a testing/synctest bubble, whose clock moves only when every
// goroutine of the bubble is blocked and then jumps to the next timer, so a
// run costs its CPU time, not its wall time. Links, faults and members
// behave the same on both; what the virtual clock cannot show is anything
// that needs time to pass while the CPU works — a slow apply, a slow disk —
// and it has no sockets for code that dials etcd itself (ClientEndpoints).
type Clock string

const (
	// ClockDefault is the zero Clock: virtual when Start is called inside
	// a synctest bubble, real outside one (see Resolve).
	ClockDefault Clock = ""
	// ClockReal runs on the wall clock, on loopback sockets.
	ClockReal Clock = "real"
	// ClockVirtual runs on a synctest bubble's clock, on an in-memory
	// network.
	ClockVirtual Clock = "virtual"
)

// Clocks lists the valid clock names.
func Clocks() []Clock { return []Clock{ClockVirtual, ClockReal} }

// ParseClock reads a clock's name; "" is ClockDefault.
func ParseClock(s string) (Clock, error) {
	c := Clock(s)
	if err := c.Validate(); err != nil {
		return "", err
	}
	return c, nil
}

// Validate reports a clock that does not exist, naming the valid ones.
func (c Clock) Validate() error {
	switch c {
	case ClockDefault, ClockReal, ClockVirtual:
		return nil
	}
	names := make([]string, 0, 2)
	for _, v := range Clocks() {
		names = append(names, string(v))
	}
	return fmt.Errorf("cluster: unknown clock %q; valid: %s (\"\" means virtual inside a synctest bubble, real outside)", string(c), strings.Join(names, ", "))
}

// Resolve returns the clock c stands for where it is called: ClockDefault
// is the virtual clock inside a synctest bubble and the real one outside.
func (c Clock) Resolve() Clock {
	if c != ClockDefault {
		return c
	}
	if bubble.Inside() {
		return ClockVirtual
	}
	return ClockReal
}

// String returns the clock's name, "default" for ClockDefault.
func (c Clock) String() string {
	if c == ClockDefault {
		return "default"
	}
	return string(c)
}

// ErrNeedsRealClock is wrapped by the errors of calls that need real
// sockets, made on a cluster on the virtual clock.
var ErrNeedsRealClock = errors.New("cluster: needs the real clock")

// checkVirtual says why a cluster cannot start on the virtual clock here:
// outside a synctest bubble, or on an etcd whose internals differ.
func checkVirtual() error {
	if !bubble.Inside() {
		return errors.New("cluster: Config.Clock is virtual, but Start was not called inside a synctest bubble: in a test use clustertest.Virtual (or synctest.Test); in a program run under bubble.Run; or use the real clock (Config.Clock: ClockReal)")
	}
	return checkInternals()
}

// DialOptions returns the gRPC dial options a client of this cluster's
// members needs: on the virtual clock, the dialer of the in-memory network
// and an interceptor that commits each stream as it opens, so no gRPC
// retry can freeze the bubble (see commitStreams); nothing on the real
// clock. A clientv3.Config takes them in DialOptions. Code that builds its
// own client with these reaches the members' proxies like the harness
// does.
func (c *Cluster) DialOptions() []grpc.DialOption {
	if c.net == nil || c.net.mem == nil {
		return nil
	}
	mem := c.net.mem
	return []grpc.DialOption{grpc.WithContextDialer(mem.Dial), commitStreams()}
}

// ListenService opens a listener for a service of the caller's own — a
// backend that registers itself in etcd, say — on the cluster's network:
// a kernel-chosen loopback port on the real clock, an address of the
// in-memory network on the virtual one. Clients reach it with the dial
// options of DialOptions. The caller closes it.
func (c *Cluster) ListenService() (net.Listener, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	return c.net.listen("")
}
