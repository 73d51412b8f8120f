package cluster

// Libraries that dial etcd by themselves, from addresses alone, on the
// virtual clock.
//
// The model: on the virtual clock EndpointsOf gives a library made-up
// addresses, one per member, under the reserved top-level domain .invalid
// (RFC 2606: no resolver ever answers for it), of the form
//
//	http://<member>.<client>.l<life>.etcdsim.invalid:2379
//
// where life numbers one life of the named client's process, unique in the
// process. gRPC carries no hook a library cannot bypass except one: a
// process-wide list of per-target dial options, which grpc.NewClient
// applies to every channel after the caller's own options
// (google.golang.org/grpc/internal.AddGlobalPerTargetDialOptions, reached
// with go:linkname because the package is internal to gRPC). etcdsim adds
// three such options once, in init, before any goroutine can dial. Each
// looks at the channel's target and does nothing unless the target's
// endpoint is one of these addresses — clientv3 names its channel after its
// first endpoint — so every other channel of the process dials exactly as
// gRPC would without etcdsim. For a channel whose target is one:
//
//   - a dialer carries each connection to the named client's proxy for that
//     member, on the cluster's in-memory network, so every fault aimed at the
//     client reaches the library; any other address — a member's own URL
//     learned from a member list, another client's or a dead life's — is
//     refused with ErrStrayDial and recorded in StrayDials;
//   - two interceptors hand the channel to the life, which closes it when the
//     process crashes or the cluster closes, as ClientConfigOf's do.
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
	_ "unsafe" // for go:linkname

	"google.golang.org/grpc"
)

// libDomain ends every address EndpointsOf gives out on the virtual clock.
const libDomain = ".etcdsim.invalid"

// addGlobalPerTargetDialOptions is gRPC's process-wide hook, a
// func(opt any) that keeps opt if it has a method
// DialOptionForTarget(url.URL) grpc.DialOption. Should gRPC drop it, this
// line fails to link, naming it.
//
//go:linkname addGlobalPerTargetDialOptions google.golang.org/grpc/internal.AddGlobalPerTargetDialOptions
var addGlobalPerTargetDialOptions any

func init() {
	add, ok := addGlobalPerTargetDialOptions.(func(any))
	if !ok {
		return // libDialInstalled stays false: EndpointsOf needs the real clock
	}
	add(targetDialer{})
	add(targetInterceptors{stream: false})
	add(targetInterceptors{stream: true})
	libDialInstalled.Store(true)
}

// libDialInstalled says init installed the per-target options.
var libDialInstalled atomic.Bool

// libRoutes maps each address EndpointsOf gave out to where it leads.
var libRoutes struct {
	mu     sync.Mutex // guards byHost
	byHost map[string]libRoute
}

// libRoute is one address of one life of a named client: the proxy of that
// client to one member, on its cluster's network.
type libRoute struct {
	c    *Cluster
	name string
	life *libLife
	addr string // the proxy's address on the in-memory network
}

// libEndpoints returns, and routes, the addresses of lp's life, one per
// proxy of its named client. A life that ended meanwhile (its process
// crashed) gets its addresses unrouted: they lead nowhere.
func libEndpoints(lp libProcess) []string {
	eps := make([]string, len(lp.eps))
	libRoutes.mu.Lock()
	defer libRoutes.mu.Unlock()
	if libRoutes.byHost == nil {
		libRoutes.byHost = make(map[string]libRoute)
	}
	ended := lp.life.isEnded()
	for i, ep := range lp.eps {
		host := fmt.Sprintf("%s.%s%s", lp.members[i], lp.name, lp.life.hostSuffix())
		if !ended {
			libRoutes.byHost[host] = libRoute{c: lp.c, name: lp.name, life: lp.life, addr: strings.TrimPrefix(ep, "http://")}
		}
		eps[i] = "http://" + host
	}
	return eps
}

// hostSuffix ends every address of the life, after its member's and its
// client's names: the life's serial makes it the life's alone.
func (l *libLife) hostSuffix() string { return fmt.Sprintf(".l%d%s:2379", l.serial, libDomain) }

// memberNames names the member each of nc's endpoints leads to, in the
// order of nc.endpoints(); Cluster.mu must be held.
func (nc *namedClient) memberNames() []string {
	byAddr := make(map[string]string, len(nc.proxies))
	for m, p := range nc.proxies {
		byAddr["http://"+p.addr()] = m
	}
	eps := nc.endpoints()
	names := make([]string, len(eps))
	for i, ep := range eps {
		names[i] = byAddr[ep]
	}
	return names
}

// dropRoutes forgets the addresses of life, as it ends.
func dropRoutes(life *libLife) {
	libRoutes.mu.Lock()
	defer libRoutes.mu.Unlock()
	for host, r := range libRoutes.byHost {
		if r.life == life {
			delete(libRoutes.byHost, host)
		}
	}
}

// routeOf returns the route of a channel's target, if its endpoint is an
// address EndpointsOf gave out; reserved says the endpoint has the form of
// one, known or not (a dead life's).
func routeOf(target url.URL) (r libRoute, known, reserved bool) {
	host := strings.TrimPrefix(target.Path, "/")
	if host == "" {
		host = target.Host
	}
	h, _, err := net.SplitHostPort(host)
	if err != nil || !strings.HasSuffix(h, libDomain) {
		return libRoute{}, false, false
	}
	libRoutes.mu.Lock()
	defer libRoutes.mu.Unlock()
	r, known = libRoutes.byHost[host]
	return r, known, true
}

// targetDialer gives a channel to one of EndpointsOf's addresses the
// dialer of its life.
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
		libRoutes.mu.Lock()
		r, ok := libRoutes.byHost[addr]
		libRoutes.mu.Unlock()
		if !ok && tr.life.isEnded() && strings.HasSuffix(addr, tr.life.hostSuffix()) {
			// A channel of a process that has ended, dialing again: one
			// no call had handed to its life when the process crashed, or
			// one whose connections the crash reset before its life closed
			// it. A process that crashed dials nothing; no fault of the
			// library's.
			return nil, fmt.Errorf("%w: %s: the process of %q has ended, and a connection it made dials no more", ErrCrashed, addr, tr.name)
		}
		if !ok || r.life != tr.life {
			err := fmt.Errorf("%w: a library's client of %q dialed %s; the harness gave it the addresses of EndpointsOf, for this life of its process only: build the client from those rather than from addresses of its own, or of a process that ended", ErrStrayDial, tr.name, addr)
			tr.c.recordStray(err)
			return nil, err
		}
		return r.c.net.dial(ctx, r.addr)
	})
}

// targetInterceptors hand a channel to one of EndpointsOf's addresses to
// its life, which closes it when the process ends: gRPC shows a channel to
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
