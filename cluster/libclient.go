package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// ErrStrayDial is wrapped by the error a library's client gets, and that
// StrayDials reports, when it dials an address the harness did not give
// it.
var ErrStrayDial = errors.New("cluster: dial of an address the harness did not give")

// libClients maps each *clientv3.Client the cluster dialed for a named
// client to its cluster and name, so that ClientConfigOf can hand a
// library what it needs to dial the same links itself.
var libClients struct {
	mu    sync.Mutex // guards byCli, stray and lives
	byCli map[*clientv3.Client]libClient
	stray map[*Cluster][]error // the stray dials of each open cluster
	lives map[libClient]*libLife
}

// libLife is what the libraries' clients of one named client share for
// one life of its process: a context that ends, and the gRPC connections
// that close, when the process crashes or the cluster closes.
type libLife struct {
	serial int64 // numbers the life in the process, for EndpointsOf's addresses
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex // guards conns and ended
	conns  map[*grpc.ClientConn]struct{}
	ended  bool
}

// track remembers cc, or closes it at once if the life has ended.
func (l *libLife) track(cc *grpc.ClientConn) {
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		cc.Close()
		return
	}
	l.conns[cc] = struct{}{}
	l.mu.Unlock()
}

// end cancels the life's context, forgets its addresses and closes its
// connections. It marks the life ended before it forgets the addresses, so
// that libEndpoints routes none of an ended life.
func (l *libLife) end() {
	l.cancel()
	l.mu.Lock()
	l.ended = true
	conns := l.conns
	l.conns = nil
	l.mu.Unlock()
	dropRoutes(l)
	for cc := range conns {
		cc.Close()
	}
}

// isEnded says whether end has run.
func (l *libLife) isEnded() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

// options are the dial options that hand every connection a library
// dials to l: gRPC shows a client's connection to its interceptors only.
func (l *libLife) options() []grpc.DialOption {
	return []grpc.DialOption{l.unary(), l.stream()}
}

func (l *libLife) unary() grpc.DialOption {
	return grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		l.track(cc)
		return invoke(ctx, method, req, reply, cc, opts...)
	})
}

func (l *libLife) stream() grpc.DialOption {
	return grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, stream grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		l.track(cc)
		return stream(ctx, desc, cc, method, opts...)
	})
}

// lifeOf returns the current life of c's client called name, starting one
// if there is none.
func lifeOf(c *Cluster, name string) *libLife {
	libClients.mu.Lock()
	defer libClients.mu.Unlock()
	if libClients.lives == nil {
		libClients.lives = make(map[libClient]*libLife)
	}
	k := libClient{c: c, name: name}
	l, ok := libClients.lives[k]
	if !ok {
		l = &libLife{serial: lifeSerial.Add(1), conns: make(map[*grpc.ClientConn]struct{})}
		l.ctx, l.cancel = context.WithCancel(context.Background())
		libClients.lives[k] = l
	}
	return l
}

// lifeSerial numbers the lives of named clients in the process.
var lifeSerial atomic.Int64

// endLibClients ends the current life of c's client called name, as its
// process crashes: the libraries' clients made from ClientConfigOf stop
// with it, and keep no lease of the dead process alive.
func endLibClients(c *Cluster, name string) {
	k := libClient{c: c, name: name}
	libClients.mu.Lock()
	l := libClients.lives[k]
	delete(libClients.lives, k)
	libClients.mu.Unlock()
	if l != nil {
		l.end()
	}
}

type libClient struct {
	c    *Cluster
	name string
}

// registerLibClient remembers that c dialed cli for the client called name.
func registerLibClient(cli *clientv3.Client, c *Cluster, name string) {
	libClients.mu.Lock()
	defer libClients.mu.Unlock()
	if libClients.byCli == nil {
		libClients.byCli = make(map[*clientv3.Client]libClient)
		libClients.stray = make(map[*Cluster][]error)
	}
	libClients.byCli[cli] = libClient{c: c, name: name}
}

// forgetLibClients drops what registerLibClient and stray dials recorded
// of c, as it closes.
func forgetLibClients(c *Cluster) {
	libClients.mu.Lock()
	var ended []*libLife
	for cli, lc := range libClients.byCli {
		if lc.c == c {
			delete(libClients.byCli, cli)
		}
	}
	for k, l := range libClients.lives {
		if k.c == c {
			ended = append(ended, l)
			delete(libClients.lives, k)
		}
	}
	delete(libClients.stray, c)
	libClients.mu.Unlock()
	for _, l := range ended {
		l.end()
	}
}

// ClientConfigOf returns what a library needs to build an etcd client of
// its own that reaches the cluster exactly as cli does: cli's endpoints,
// the links of the named client cli belongs to, so every fault aimed at
// that client — a cut, a pause, CrashClient — reaches the library's
// connections too; and DialOptions whose dialer carries them over the
// cluster's network, in memory on the virtual clock. A library that takes
// a clientv3.Config, or endpoints and gRPC dial options, thus runs in the
// bubble on the virtual clock; one that dials by itself from endpoints
// alone needs the real clock (see ClientEndpoints), and the error of
// RealSocketsOnly says so.
//
// The client's process ends with the named client's: when CrashClient
// takes it down or the cluster closes, Context ends and every gRPC
// connection dialed with these DialOptions closes, so a library's client
// keeps no lease of a dead process alive even when the library offers no
// way to close it. (A library that takes a context of its own instead of
// Config.Context should be given Context.) The client's own goroutines —
// a lease's keep-alive loop, say — end only when the library closes it,
// which the recipe's Close must see to. After RestartClient, ask again
// for the new process's configuration.
//
// The dialer refuses an address the harness did not give — one outside
// Endpoints — with an error wrapping ErrStrayDial that names it, and
// StrayDials records it. cli must be a client Client, NewClient or
// RestartClient returned.
func ClientConfigOf(cli *clientv3.Client) (clientv3.Config, error) {
	lp, err := libProcessOf(cli, "ClientConfigOf")
	if err != nil {
		return clientv3.Config{}, err
	}
	opts := append(lp.life.options(), grpc.WithContextDialer(lp.c.guardedDial(lp.name, lp.eps)))
	if lp.c.net.mem != nil {
		opts = append(opts, commitStreams())
	}
	return clientv3.Config{
		Context:              lp.life.ctx,
		Endpoints:            lp.eps,
		Logger:               quietLogger(),
		DialTimeout:          5 * time.Second,
		DialKeepAliveTime:    2 * time.Second,
		DialKeepAliveTimeout: 2 * time.Second,
		DialOptions:          opts,
	}, nil
}

// libProcess is the current life of the process of a named client, for a
// library's client: its cluster, name and life, and its links (the URLs of
// its proxies, and the members they lead to, in member order).
type libProcess struct {
	c       *Cluster
	name    string
	life    *libLife
	eps     []string
	members []string
}

// libProcessOf returns the current life of cli's named client, or an error
// (prefixed by what, the caller's name) if cli is no client of an open
// cluster or its process is down.
func libProcessOf(cli *clientv3.Client, what string) (libProcess, error) {
	libClients.mu.Lock()
	lc, ok := libClients.byCli[cli]
	libClients.mu.Unlock()
	if !ok {
		return libProcess{}, fmt.Errorf("cluster: %s: the client was not made by a cluster that is open (Cluster.Client, NewClient or RestartClient make them)", what)
	}
	c := lc.c
	c.mu.Lock()
	nc := c.clients[lc.name]
	if c.closed || nc == nil {
		c.mu.Unlock()
		return libProcess{}, fmt.Errorf("cluster: %s(%q): %w", what, lc.name, ErrClosed)
	}
	crashed, eps, members := nc.crashed, nc.endpoints(), nc.memberNames()
	if crashed {
		c.mu.Unlock()
		return libProcess{}, fmt.Errorf("%w: %s(%q): the client's process is down; RestartClient brings it back", ErrCrashed, what, lc.name)
	}
	// Under c.mu, which CrashClient holds as it marks the process down:
	// a life taken here is the one its next crash ends, never one started
	// for a process already down.
	life := lifeOf(c, lc.name)
	c.mu.Unlock()
	return libProcess{c: c, name: lc.name, life: life, eps: eps, members: members}, nil
}

// guardedDial dials over the cluster's network the addresses of eps and
// refuses any other, recording the refusal.
func (c *Cluster) guardedDial(name string, eps []string) func(context.Context, string) (net.Conn, error) {
	var allowed []string
	for _, ep := range eps {
		if u, err := url.Parse(ep); err == nil && u.Host != "" {
			allowed = append(allowed, u.Host)
		}
	}
	return func(ctx context.Context, addr string) (net.Conn, error) {
		if !slices.Contains(allowed, addr) {
			err := fmt.Errorf("%w: a library's client of %q dialed %s; the harness gave it %v (ClientConfigOf's Endpoints): build the client from that configuration rather than from addresses of its own", ErrStrayDial, name, addr, eps)
			c.recordStray(err)
			return nil, err
		}
		return c.net.dial(ctx, addr)
	}
}

// recordStray remembers the refusal of a library's dial, for StrayDials.
func (c *Cluster) recordStray(err error) {
	libClients.mu.Lock()
	defer libClients.mu.Unlock()
	if libClients.stray != nil {
		libClients.stray[c] = append(libClients.stray[c], err)
	}
}

// StrayDials returns the refusals of ClientConfigOf's dialers so far: each
// names the client and the address a library dialed that the harness had
// not given it. A run reports them as the recipe's fault.
func (c *Cluster) StrayDials() []error {
	libClients.mu.Lock()
	defer libClients.mu.Unlock()
	return slices.Clone(libClients.stray[c])
}

// RealSocketsOnly is the error for a library that dials etcd only by
// itself, from addresses, with no way to be given a dialer (lib names it
// and why says what it lacks), when cli's cluster runs on the virtual
// clock: it wraps ErrNeedsRealClock and says to run on the real clock. On
// the real clock it is nil. A recipe's constructor returns it before
// building the library's client.
func RealSocketsOnly(cli *clientv3.Client, lib, why string) error {
	libClients.mu.Lock()
	lc, ok := libClients.byCli[cli]
	libClients.mu.Unlock()
	if ok && lc.c.cfg.Clock.Resolve() != ClockVirtual {
		return nil
	}
	if !ok && !bubble.Inside() {
		return nil
	}
	return fmt.Errorf("%w: %s dials etcd over real sockets only (%s), and the virtual clock's network is in memory; run it on the real clock (Config.Clock: ClockReal, simrun -clock real)", ErrNeedsRealClock, lib, why)
}

// EndpointsOf returns endpoints for a library that dials etcd by itself
// from endpoints alone, with no way to be given a dialer (lib names it and
// why says what it lacks, for errors), that reach the cluster exactly as
// cli does: every fault aimed at cli's named client — a cut, a pause,
// CrashClient — reaches the library's connections too.
//
// On the real clock they are the URLs that carry that client's traffic
// alone. On the virtual clock they are addresses under .etcdsim.invalid
// that gRPC dials, for every channel named after one of them, over the
// cluster's in-memory network (libdial.go says how): a library that builds
// its own clientv3 from them runs in the bubble. As with ClientConfigOf,
// the library's connections close when the named client's process crashes
// or the cluster closes, an address outside them is refused with
// ErrStrayDial and recorded in StrayDials, and after RestartClient the new
// process has addresses of its own: ask again. The library's client's own
// goroutines end only when the library closes it, which the recipe's Close
// must see to.
//
// cli must be a client Client, NewClient or RestartClient returned, of a
// cluster that is open, whose process is up. A library that takes gRPC
// dial options or a clientv3.Config can take ClientConfigOf instead.
func EndpointsOf(cli *clientv3.Client, lib, why string) ([]string, error) {
	if cli == nil {
		return nil, fmt.Errorf("cluster: EndpointsOf(%s): nil client", lib)
	}
	lp, err := libProcessOf(cli, "EndpointsOf("+lib+")")
	if err != nil {
		return nil, err
	}
	if lp.c.cfg.Clock.Resolve() != ClockVirtual {
		return lp.eps, nil
	}
	if !libDialInstalled.Load() {
		return nil, RealSocketsOnly(cli, lib, why+"; and this build of gRPC lacks the per-target dial options etcdsim routes such libraries with")
	}
	return libEndpoints(lp), nil
}
