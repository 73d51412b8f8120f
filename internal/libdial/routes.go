package libdial

// Libraries that dial etcd by themselves, from addresses alone, on the
// virtual clock: the one process-wide registry of etcdsim, and why it is
// one.
//
// The model: on the virtual clock a library is given made-up addresses,
// one per member, under the reserved top-level domain .invalid (RFC 2606:
// no resolver ever answers for it), of the form
//
//	http://<member>.<client>.l<life>.etcdsim.invalid:2379
//
// where life numbers one Life, unique in the process. gRPC carries no hook
// a library cannot bypass except one: a process-wide list of per-target
// dial options, which grpc.NewClient applies to every channel after the
// caller's own options (grpcinternals.go reaches it). A library that
// dials by itself hands gRPC nothing but such an address, so the address
// is all there is to find its cluster by: that is why the routes below
// are process-wide, and nothing else is. Three options are added once, in
// init, before any goroutine can dial. Each looks at the channel's target
// and does nothing unless the target's endpoint is one of these addresses
// — clientv3 names its channel after its first endpoint — so every other
// channel of the process dials exactly as gRPC would without etcdsim. For
// a channel whose target is one:
//
//   - a dialer carries each connection to the named client's proxy for that
//     member, on the cluster's network (Owner.Dial), so every fault aimed at
//     the client reaches the library; any other address — a member's own URL
//     learned from a member list, another client's or a dead life's — is
//     refused with ErrStrayDial and recorded (Owner.Stray);
//   - two interceptors hand the channel to the life, which closes it when the
//     process crashes or the cluster closes, as Options' do.
//
// The addresses of a life are forgotten when it ends: a library's client of
// a crashed process can no longer reach etcd, and a restarted process gets
// new addresses, so a library that caches its clients by endpoints (go-zero
// does) does not hand the new process the dead one's client.

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
)

// domain ends every address Endpoints gives out.
const domain = ".etcdsim.invalid"

// lifeSerial numbers the lives in the process, so that no two lives'
// addresses are alike.
var lifeSerial atomic.Int64

// routes maps each address Endpoints gave out to where it leads.
var routes struct {
	mu     sync.Mutex // guards byHost
	byHost map[string]route
}

// route is one address of one life: the proxy of its named client to one
// member, on its cluster's network.
type route struct {
	life *Life
	addr string // the proxy's address on the cluster's network
}

// Installed says whether gRPC took the per-target dial options: without
// them, Endpoints' addresses lead nowhere, and a library that dials by
// itself needs the real clock.
func Installed() bool { return installed.Load() }

// Endpoints returns, and routes, addresses of l for a library that dials
// by itself: one per link of its named client, members[i] the member that
// eps[i], the link's URL (http://<proxy address>), leads to. A life that
// ended meanwhile gets its addresses unrouted: they lead nowhere.
func (l *Life) Endpoints(members, eps []string) []string {
	out := make([]string, len(eps))
	routes.mu.Lock()
	defer routes.mu.Unlock()
	if routes.byHost == nil {
		routes.byHost = make(map[string]route)
	}
	ended := l.Ended()
	for i, ep := range eps {
		host := fmt.Sprintf("%s.%s%s", members[i], l.owner.Name, l.hostSuffix())
		if !ended {
			routes.byHost[host] = route{life: l, addr: strings.TrimPrefix(ep, "http://")}
		}
		out[i] = "http://" + host
	}
	return out
}

// hostSuffix ends every address of the life, after its member's and its
// client's names: the life's serial makes it the life's alone.
func (l *Life) hostSuffix() string { return fmt.Sprintf(".l%d%s:2379", l.serial, domain) }

// dropRoutes forgets the addresses of life, as it ends.
func dropRoutes(life *Life) {
	routes.mu.Lock()
	defer routes.mu.Unlock()
	for host, r := range routes.byHost {
		if r.life == life {
			delete(routes.byHost, host)
		}
	}
}

// routeOf returns the route of a channel's target, if its endpoint is an
// address Endpoints gave out; reserved says the endpoint has the form of
// one, known or not (a dead life's).
func routeOf(target url.URL) (r route, known, reserved bool) {
	host := strings.TrimPrefix(target.Path, "/")
	if host == "" {
		host = target.Host
	}
	h, _, err := net.SplitHostPort(host)
	if err != nil || !strings.HasSuffix(h, domain) {
		return route{}, false, false
	}
	routes.mu.Lock()
	defer routes.mu.Unlock()
	r, known = routes.byHost[host]
	return r, known, true
}

// targetDialer gives a channel to one of Endpoints' addresses the dialer
// of its life.
type targetDialer struct{}

func (targetDialer) DialOptionForTarget(target url.URL) grpc.DialOption {
	tr, known, reserved := routeOf(target)
	switch {
	case !reserved:
		return grpc.EmptyDialOption{}
	case !known:
		host := strings.TrimPrefix(target.Path, "/")
		return grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) {
			return nil, fmt.Errorf("%w: %s is no address of a process that is up (its client crashed, or its cluster closed); ask EndpointsOf again after RestartClient", ErrStrayDial, host)
		})
	}
	return grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
		routes.mu.Lock()
		r, ok := routes.byHost[addr]
		routes.mu.Unlock()
		if !ok && tr.life.Ended() && strings.HasSuffix(addr, tr.life.hostSuffix()) {
			// A channel of a process that has ended, dialing again: one
			// no call had handed to its life when the process crashed, or
			// one whose connections the crash reset before its life closed
			// it. A process that crashed dials nothing; no fault of the
			// library's.
			return nil, fmt.Errorf("%w: %s: the process of %q has ended, and a connection it made dials no more", tr.life.owner.Crashed, addr, tr.life.owner.Name)
		}
		if !ok || r.life != tr.life {
			err := fmt.Errorf("%w: a library's client of %q dialed %s; the harness gave it the addresses of EndpointsOf, for this life of its process only: build the client from those rather than from addresses of its own, or of a process that ended", ErrStrayDial, tr.life.owner.Name, addr)
			tr.life.stray(err)
			return nil, err
		}
		return r.life.owner.Dial(ctx, r.addr)
	})
}

// targetInterceptors hand a channel to one of Endpoints' addresses to its
// life, which closes it when the process ends: gRPC shows a channel to
// its interceptors only.
type targetInterceptors struct{ stream bool }

func (ti targetInterceptors) DialOptionForTarget(target url.URL) grpc.DialOption {
	tr, known, _ := routeOf(target)
	if !known {
		return grpc.EmptyDialOption{}
	}
	if ti.stream {
		return tr.life.stream()
	}
	return tr.life.unary()
}
