package cluster

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/etcdsim/etcdsim/internal/libdial"
)

// ClientConfig shapes a named client. The zero ClientConfig reaches every
// member.
type ClientConfig struct {
	// Members lists the members the client has links to, by name. nil means
	// every member.
	Members []string `json:"members,omitempty"`
	// User is the user of Config.Auth the client speaks as ("root" is the
	// harness's). It is required when auth is on, and an error when off.
	User string `json:"user,omitempty"`
	// Configure, if set, adjusts the client's configuration before it is
	// created (keepalive, timeouts, logger). Endpoints are the harness's
	// and must not be changed.
	Configure func(*clientv3.Config) `json:"-"`
}

// namedClient is a named client: the proxies that form its links and,
// once something asked for it, the *clientv3.Client that uses them. A name
// given out only by ClientEndpoints has links and no *clientv3.Client: the
// code that asked dials etcd itself.
type namedClient struct {
	name       string
	cfg        ClientConfig
	allMembers bool // created for every member: gains links to added ones

	// lifeMu serializes what takes time: linking, dialing, crashing and
	// restarting. Cluster.mu guards the fields below it.
	lifeMu  sync.Mutex
	linked  bool              // its proxies exist; until then no one sees it
	dropped bool              // its making failed and it was forgotten
	proxies map[string]*proxy // by member name
	cli     *clientv3.Client  // nil until dialed, and while crashed
	crashed bool
	life    *libdial.Life // its process's life for libraries' clients; nil until one asks (libclient.go)
	// ownOpts are the dial options ClientConfig.Configure added: the
	// process's own, so libraries' clients get them too (ClientConfigOf).
	ownOpts []grpc.DialOption
}

// endpoints lists the client's proxy URLs in member order; Cluster.mu must
// be held.
func (nc *namedClient) endpoints() []string {
	names := make([]string, 0, len(nc.proxies))
	for name := range nc.proxies {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Compare(len(a), len(b))*2 + strings.Compare(a, b)
	})
	out := make([]string, 0, len(names))
	for _, name := range names {
		out = append(out, "http://"+nc.proxies[name].addr())
	}
	return out
}

var clientNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`)
var memberNameRE = regexp.MustCompile(`^m[0-9]+$`)

func checkClientName(name string) error {
	if !clientNameRE.MatchString(name) || memberNameRE.MatchString(name) {
		return fmt.Errorf("cluster: bad client name %q: use a letter then letters, digits, '_', '.' or '-' (at most 64), and not a member name like m0", name)
	}
	return nil
}

// Client returns the client called name, creating it with links to every
// member on first use. A name that ClientEndpoints created gets its
// *clientv3.Client now, on the same links. The cluster closes it on Close.
// A crashed client is an error (ErrCrashed) until RestartClient.
func (c *Cluster) Client(name string) (*clientv3.Client, error) {
	nc, added, err := c.openClient(name)
	if err != nil {
		return nil, err
	}
	defer nc.lifeMu.Unlock()
	c.mu.Lock()
	cli, crashed := nc.cli, nc.crashed
	c.mu.Unlock()
	switch {
	case crashed:
		return nil, fmt.Errorf("%w: %q; RestartClient brings it back", ErrCrashed, name)
	case cli != nil:
		return cli, nil
	}
	cli, err = c.dial(nc)
	if err != nil && added {
		c.drop(nc)
	}
	return cli, err
}

// openClient returns the client called name, locked for changes to its
// life (the caller unlocks nc.lifeMu), creating it with links to every
// member if there is none; added says it was created now.
func (c *Cluster) openClient(name string) (nc *namedClient, added bool, err error) {
	if err := checkClientName(name); err != nil {
		return nil, false, err
	}
	nc, added, err = c.lockClient(name, ClientConfig{})
	if err != nil {
		return nil, false, err
	}
	if added {
		if err := c.link(nc); err != nil {
			nc.lifeMu.Unlock()
			return nil, false, err
		}
	}
	return nc, added, nil
}

// NewClient creates the client called name. Its connection to each member
// runs through a link of its own (name→member and member→name), so faults
// can single it out. It is an error if a client of that name exists, even
// one that ClientEndpoints created.
func (c *Cluster) NewClient(name string, cfg ClientConfig) (*clientv3.Client, error) {
	if err := checkClientName(name); err != nil {
		return nil, err
	}
	nc, added, err := c.lockClient(name, cfg)
	if err != nil {
		return nil, err
	}
	defer nc.lifeMu.Unlock()
	if !added {
		return nil, fmt.Errorf("cluster: a client named %q exists already", name)
	}
	if err := c.link(nc); err != nil {
		return nil, err
	}
	cli, err := c.dial(nc)
	if err != nil {
		c.drop(nc)
		return nil, err
	}
	return cli, nil
}

// ClientEndpoints returns the URLs that carry the traffic of the client
// called name and nothing else, one per member it has links to, creating
// the client's links to every member if it does not exist yet. It is for
// code that builds its own etcd client from a list of endpoints, as most
// service frameworks do: given these, that code is subject to every fault
// aimed at the client — Isolate(name), a paused, delayed or reset client,
// lost responses, CrashClient — and ClientNames lists the name like any
// other. The URLs stay the same for the cluster's life; a member added
// later gets a link to a client created for every member, so ask again to
// include it.
func (c *Cluster) ClientEndpoints(name string) ([]string, error) {
	if c.cfg.Clock.Resolve() == ClockVirtual {
		return nil, fmt.Errorf("%w: ClientEndpoints(%q) gives out addresses for code that dials etcd with sockets of its own, and the virtual clock's network is in memory; build the client with Client or NewClient, or give it Cluster.DialOptions, or run on the real clock (Config.Clock: ClockReal, simrun -clock real)", ErrNeedsRealClock, name)
	}
	nc, _, err := c.openClient(name)
	if err != nil {
		return nil, err
	}
	defer nc.lifeMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	return nc.endpoints(), nil
}

// lockClient returns the client called name with its lifeMu held, adding
// it, unlinked and made with cfg, if there is none; added reports whether
// it did.
func (c *Cluster) lockClient(name string, cfg ClientConfig) (nc *namedClient, added bool, err error) {
	for {
		c.mu.Lock()
		if err := c.openLocked(); err != nil {
			c.mu.Unlock()
			return nil, false, err
		}
		nc, ok := c.clients[name]
		if !ok {
			nc = &namedClient{name: name, cfg: cfg, allMembers: cfg.Members == nil, proxies: make(map[string]*proxy)}
			// Locked before anyone else can see it, so that a caller
			// who finds it waits until its maker has linked it; fresh,
			// it cannot block.
			nc.lifeMu.Lock()
			c.clients[name] = nc
			c.mu.Unlock()
			return nc, true, nil
		}
		c.mu.Unlock()
		nc.lifeMu.Lock()
		c.mu.Lock()
		dropped := nc.dropped
		c.mu.Unlock()
		if !dropped {
			return nc, false, nil
		}
		nc.lifeMu.Unlock() // whoever added it failed to make it; the name is free again
	}
}

// lookupClient returns the client called name with its lifeMu held, or an
// error naming the clients that exist.
func (c *Cluster) lookupClient(name string) (*namedClient, error) {
	c.mu.Lock()
	if err := c.openLocked(); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	nc, ok := c.clients[name]
	c.mu.Unlock()
	if ok {
		nc.lifeMu.Lock()
		c.mu.Lock()
		usable := nc.linked
		c.mu.Unlock()
		if usable {
			return nc, nil
		}
		nc.lifeMu.Unlock()
	}
	return nil, fmt.Errorf("%w %q (clients: %v)", ErrUnknownNode, name, c.ClientNames())
}

// link gives a new client a proxy to each of its members; nc.lifeMu must
// be held. On error the client is forgotten.
func (c *Cluster) link(nc *namedClient) error {
	targets, err := c.clientTargets(nc.name, nc.cfg.Members)
	if err != nil {
		c.drop(nc)
		return err
	}
	c.net.addClient(nc.name)
	for _, m := range targets {
		p, err := c.net.newProxy(m.name, nc.name, nil, false, "")
		if err != nil {
			c.drop(nc)
			return fmt.Errorf("cluster: client %q: proxy to %s: %w", nc.name, m.name, err)
		}
		m.mu.Lock()
		if m.state == stateRunning {
			p.setTarget(m.clientAddr)
		}
		m.mu.Unlock()
		c.mu.Lock()
		nc.proxies[m.name] = p
		c.mu.Unlock()
	}
	c.mu.Lock()
	nc.linked = true
	c.mu.Unlock()
	return nil
}

// clientTargets resolves a client's member names; nil means every member.
func (c *Cluster) clientTargets(name string, members []string) ([]*Member, error) {
	if members == nil {
		for _, m := range c.Members() {
			members = append(members, m.name)
		}
	}
	if len(members) == 0 {
		return nil, fmt.Errorf("cluster: client %q: ClientConfig.Members is empty; name at least one member or leave it nil for all", name)
	}
	var targets []*Member
	for _, mn := range members {
		m, err := c.Member(mn)
		if err != nil {
			return nil, fmt.Errorf("cluster: client %q: %w", name, err)
		}
		if slices.Contains(targets, m) {
			return nil, fmt.Errorf("cluster: client %q: member %s listed twice", name, mn)
		}
		targets = append(targets, m)
	}
	return targets, nil
}

// dial makes the client's *clientv3.Client on its links; nc.lifeMu must be
// held.
func (c *Cluster) dial(nc *namedClient) (*clientv3.Client, error) {
	user, password, err := c.clientCredentials(nc.name, nc.cfg)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	endpoints := nc.endpoints()
	c.mu.Unlock()
	ccfg := clientv3.Config{
		Username:             user,
		Password:             password,
		Endpoints:            endpoints,
		Logger:               quietLogger(),
		DialKeepAliveTime:    c.cfg.ClientKeepAliveTime,
		DialKeepAliveTimeout: c.cfg.ClientKeepAliveTimeout,
	}
	if nc.cfg.Configure != nil {
		nc.cfg.Configure(&ccfg)
		ccfg.Endpoints = endpoints
	}
	ownOpts := slices.Clone(ccfg.DialOptions)
	// The client carries its owner, for ClientConfigOf (libclient.go).
	ccfg.Context = withOwner(ccfg.Context, c, nc.name)
	// Last, so the client's every connection is the network's: clientv3
	// appends Config.DialOptions after its own.
	ccfg.DialOptions = append(ccfg.DialOptions, c.DialOptions()...)
	cli, err := clientv3.New(ccfg)
	if err != nil {
		return nil, fmt.Errorf("cluster: client %q: %w", nc.name, err)
	}
	c.mu.Lock()
	closed := c.closed
	if !closed {
		nc.cli, nc.ownOpts = cli, ownOpts
	}
	c.mu.Unlock()
	if closed {
		cli.Close()
		return nil, ErrClosed
	}
	return cli, nil
}

// drop forgets a client whose creation failed, so its name can be tried
// again; its proxies are closed with the network. nc.lifeMu must be held.
func (c *Cluster) drop(nc *namedClient) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clients[nc.name] == nc {
		delete(c.clients, nc.name)
	}
	nc.linked = false
	nc.dropped = true
}

// ClientNames returns the names of the clients created so far, sorted:
// those made by Client or NewClient, those ClientEndpoints gave out, and
// crashed ones.
func (c *Cluster) ClientNames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for name, nc := range c.clients {
		if nc.linked {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// retargetClients points every client proxy of member at its new address.
func (c *Cluster) retargetClients(member, addr string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, nc := range c.clients {
		if p, ok := nc.proxies[member]; ok {
			p.setTarget(addr)
		}
	}
}

// closeClients closes every client's *clientv3.Client, for Close.
func (c *Cluster) closeClients() error {
	c.endLives()
	c.mu.Lock()
	var clis []*clientv3.Client
	for _, nc := range c.clients {
		if nc.cli != nil {
			clis = append(clis, nc.cli)
		}
	}
	for _, h := range c.harness {
		clis = append(clis, h)
	}
	c.mu.Unlock()
	var errs []error
	for _, cli := range clis {
		errs = append(errs, closeClient(cli))
	}
	return errors.Join(errs...)
}

// quietLogger keeps clientv3's own logging out of test output.
func quietLogger() *zap.Logger { return zap.NewNop() }
