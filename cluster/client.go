package cluster

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// ClientConfig shapes a named client. The zero ClientConfig reaches every
// member.
type ClientConfig struct {
	// Members lists the members the client has links to, by name. nil means
	// every member.
	Members []string `json:"members,omitempty"`
	// Configure, if set, adjusts the client's configuration before it is
	// created (keepalive, timeouts, logger). Endpoints are the harness's
	// and must not be changed.
	Configure func(*clientv3.Config) `json:"-"`
}

// namedClient is a client and the proxies that form its links.
type namedClient struct {
	name       string
	cli        *clientv3.Client
	allMembers bool              // created for every member: gains links to added ones
	proxies    map[string]*proxy // by member name; guarded by Cluster.mu
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

// Client returns the client called name, creating it with links to every
// member on first use. The cluster closes it on Close.
func (c *Cluster) Client(name string) (*clientv3.Client, error) {
	c.mu.Lock()
	nc, ok := c.clients[name]
	c.mu.Unlock()
	if ok {
		return nc.cli, nil
	}
	return c.NewClient(name, ClientConfig{})
}

// NewClient creates the client called name. Its connection to each member
// runs through a link of its own (name→member and member→name), so faults
// can single it out. It is an error if a client of that name exists.
func (c *Cluster) NewClient(name string, cfg ClientConfig) (*clientv3.Client, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if !clientNameRE.MatchString(name) || memberNameRE.MatchString(name) {
		return nil, fmt.Errorf("cluster: bad client name %q: use a letter then letters, digits, '_', '.' or '-' (at most 64), and not a member name like m0", name)
	}
	members := cfg.Members
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
	c.mu.Lock()
	if _, dup := c.clients[name]; dup {
		c.mu.Unlock()
		return nil, fmt.Errorf("cluster: a client named %q exists already", name)
	}
	nc := &namedClient{name: name, allMembers: cfg.Members == nil, proxies: make(map[string]*proxy)}
	c.clients[name] = nc // reserve the name
	c.mu.Unlock()

	c.net.addClient(name)
	var endpoints []string
	for _, m := range targets {
		p, err := c.net.newProxy(m.name, name, nil, false)
		if err != nil {
			c.dropClient(name)
			return nil, fmt.Errorf("cluster: client %q: proxy to %s: %w", name, m.name, err)
		}
		m.mu.Lock()
		if m.state == stateRunning {
			p.setTarget(m.clientAddr)
		}
		m.mu.Unlock()
		c.mu.Lock()
		nc.proxies[m.name] = p
		c.mu.Unlock()
		endpoints = append(endpoints, "http://"+p.addr())
	}
	ccfg := clientv3.Config{
		Endpoints:            endpoints,
		Logger:               quietLogger(),
		DialKeepAliveTime:    2 * time.Second,
		DialKeepAliveTimeout: 2 * time.Second,
	}
	if cfg.Configure != nil {
		cfg.Configure(&ccfg)
		ccfg.Endpoints = endpoints
	}
	cli, err := clientv3.New(ccfg)
	if err != nil {
		c.dropClient(name)
		return nil, fmt.Errorf("cluster: client %q: %w", name, err)
	}
	c.mu.Lock()
	nc.cli = cli
	closed := c.closed
	c.mu.Unlock()
	if closed {
		cli.Close()
		return nil, ErrClosed
	}
	return cli, nil
}

// dropClient forgets a client whose creation failed; its proxies are
// closed with the network.
func (c *Cluster) dropClient(name string) {
	c.mu.Lock()
	delete(c.clients, name)
	c.mu.Unlock()
}

// ClientNames returns the names of the clients created so far, sorted.
func (c *Cluster) ClientNames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for name, nc := range c.clients {
		if nc.cli != nil {
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

// quietLogger keeps clientv3's own logging out of test output.
func quietLogger() *zap.Logger { return zap.NewNop() }
