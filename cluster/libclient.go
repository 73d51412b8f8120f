package cluster

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"

	"github.com/etcdsim/etcdsim/internal/bubble"
	"github.com/etcdsim/etcdsim/internal/libdial"
)

// ErrStrayDial is wrapped by the error a library's client gets, and that
// StrayDials reports, when it dials an address the harness did not give
// it.
var ErrStrayDial = libdial.ErrStrayDial

// A library's client finds its named client through the *clientv3.Client
// it was given: the cluster makes every named client's clientv3.Client
// with a Config.Context that carries its owner, so cli.Ctx() says which
// cluster and which name it belongs to. Nothing process-wide maps clients.

// clientOwnerKey keys a named client's owner in its client's context.
type clientOwnerKey struct{}

// clientOwner is the cluster and name of a named client.
type clientOwner struct {
	c    *Cluster
	name string
}

// withOwner is ctx (context.Background if nil) carrying c's client name,
// for a named client's clientv3.Config.Context.
func withOwner(ctx context.Context, c *Cluster, name string) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithValue(ctx, clientOwnerKey{}, clientOwner{c: c, name: name})
}

// ownerOf returns the cluster and name cli was made for, if a cluster made
// it.
func ownerOf(cli *clientv3.Client) (clientOwner, bool) {
	if cli == nil || cli.Ctx() == nil {
		return clientOwner{}, false
	}
	o, ok := cli.Ctx().Value(clientOwnerKey{}).(clientOwner)
	return o, ok
}

// libState is what a cluster keeps of its libraries' clients beyond each
// named client's life (namedClient.life).
type libState struct {
	mu    sync.Mutex // guards stray
	stray []error    // the refusals of libraries' dials, for StrayDials
}

// lifeLocked returns the current life of nc's process for libraries'
// clients, starting one if there is none; c.mu must be held.
func (c *Cluster) lifeLocked(nc *namedClient) *libdial.Life {
	if nc.life == nil {
		nc.life = libdial.NewLife(libdial.Owner{Name: nc.name, Dial: c.net.dial, Stray: c.recordStray, Crashed: ErrCrashed})
	}
	return nc.life
}

// endLife ends the current life of nc's process, as the process crashes:
// the libraries' clients made from ClientConfigOf or EndpointsOf stop with
// it, and keep no lease of the dead process alive.
func (c *Cluster) endLife(nc *namedClient) {
	c.mu.Lock()
	l := nc.life
	nc.life = nil
	c.mu.Unlock()
	if l != nil {
		l.End()
	}
}

// endLives ends the lives of every named client, as the cluster closes.
func (c *Cluster) endLives() {
	c.mu.Lock()
	var lives []*libdial.Life
	for _, nc := range c.clients {
		if nc.life != nil {
			lives = append(lives, nc.life)
			nc.life = nil
		}
	}
	c.mu.Unlock()
	for _, l := range lives {
		l.End()
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
// The DialOptions begin with those ClientConfig.Configure gave the named
// client: they belong to its process, so an interceptor set there — a
// run's recorder of the leases and keys its clients use — sees the
// library's calls as well as the harness client's.
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
	opts := append(slices.Clone(lp.ownOpts), lp.life.Options()...)
	opts = append(opts, grpc.WithContextDialer(lp.life.GuardedDialer(lp.eps)))
	if lp.c.net.mem != nil {
		opts = append(opts, commitStreams())
	}
	return clientv3.Config{
		Context:              lp.life.Context(),
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
	life    *libdial.Life
	eps     []string
	members []string
	ownOpts []grpc.DialOption // ClientConfig.Configure's, for the library's client too
}

// libProcessOf returns the current life of cli's named client, or an error
// (prefixed by what, the caller's name) if cli is no client of an open
// cluster or its process is down.
func libProcessOf(cli *clientv3.Client, what string) (libProcess, error) {
	o, ok := ownerOf(cli)
	if !ok {
		return libProcess{}, fmt.Errorf("cluster: %s: the client was not made by a cluster that is open (Cluster.Client, NewClient or RestartClient make them)", what)
	}
	c := o.c
	c.mu.Lock()
	nc := c.clients[o.name]
	if c.closed || nc == nil {
		c.mu.Unlock()
		return libProcess{}, fmt.Errorf("cluster: %s(%q): %w", what, o.name, ErrClosed)
	}
	crashed, eps, members, ownOpts := nc.crashed, nc.endpoints(), nc.memberNames(), nc.ownOpts
	if crashed {
		c.mu.Unlock()
		return libProcess{}, fmt.Errorf("%w: %s(%q): the client's process is down; RestartClient brings it back", ErrCrashed, what, o.name)
	}
	// Under c.mu, which CrashClient holds as it marks the process down:
	// a life taken here is the one its next crash ends, never one started
	// for a process already down.
	life := c.lifeLocked(nc)
	c.mu.Unlock()
	return libProcess{c: c, name: o.name, life: life, eps: eps, members: members, ownOpts: ownOpts}, nil
}

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

// recordStray remembers the refusal of a library's dial, for StrayDials.
func (c *Cluster) recordStray(err error) {
	c.lib.mu.Lock()
	defer c.lib.mu.Unlock()
	c.lib.stray = append(c.lib.stray, err)
}

// StrayDials returns the refusals of ClientConfigOf's dialers so far: each
// names the client and the address a library dialed that the harness had
// not given it. A run reports them as the recipe's fault.
func (c *Cluster) StrayDials() []error {
	c.lib.mu.Lock()
	defer c.lib.mu.Unlock()
	return slices.Clone(c.lib.stray)
}

// RealSocketsOnly is the error for a library that dials etcd only by
// itself, from addresses, with no way to be given a dialer (lib names it
// and why says what it lacks), when cli's cluster runs on the virtual
// clock: it wraps ErrNeedsRealClock and says to run on the real clock. On
// the real clock it is nil. A recipe's constructor returns it before
// building the library's client.
func RealSocketsOnly(cli *clientv3.Client, lib, why string) error {
	o, ok := ownerOf(cli)
	if ok && o.c.cfg.Clock.Resolve() != ClockVirtual {
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
// cluster's in-memory network (internal/libdial says how): a library that builds
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
	if !libdial.Installed() {
		return nil, RealSocketsOnly(cli, lib, why+"; and this build of gRPC lacks the per-target dial options etcdsim routes such libraries with")
	}
	return lp.life.Endpoints(lp.members, lp.eps), nil
}
