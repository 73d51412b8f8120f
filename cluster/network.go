package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/internal/memnet"
	"github.com/etcdsim/etcdsim/seed"
)

// network owns every proxy and every proxied connection of one cluster and
// the directed links that govern them. Nodes are members ("m0", "m1", …) and
// named clients; links exist member→member, client→member and member→client.
type network struct {
	ctx    context.Context // cancelled by close; bounds handshakes and dials
	cancel context.CancelFunc
	mem    *memnet.Net // the virtual clock's in-memory network; nil on the real clock, which uses loopback sockets
	// latency is every link's one-way delay beside its condition's
	// (Config.Latency); set before any connection.
	latency time.Duration

	rngMu  sync.Mutex // guards rng, resume and placed
	rng    *rand.Rand // jitter samples, Config.Seed's network stream
	resume *rand.Rand // how frozen members resume (resume.go), Config.Seed's resume stream
	// placed, if set, is where every resume puts the lessor's pass
	// instead of a draw (tests).
	placed *lessorPlace

	mu      sync.Mutex // guards everything below
	links   map[linkKey]*link
	members []string        // in the order they were added
	clients []string        // in the order they were added
	down    map[string]bool // members not running and crashed clients: their connections are refused
	conns   map[*pconn]struct{}
	proxies []*proxy
	closed  bool

	holds holds // frozen members' bytes (Member.Freeze)

	wg sync.WaitGroup // every goroutine the network starts
}

// networkStream separates the network's jitter from every other random
// choice drawn from a run's seed.
const networkStream = 0x6e6574776f726b // "network"

func newNetwork(seed seed.Seed, mem *memnet.Net, latency time.Duration) *network {
	ctx, cancel := context.WithCancel(context.Background())
	return &network{
		ctx:     ctx,
		cancel:  cancel,
		mem:     mem,
		latency: latency,
		rng:     seed.Rand(networkStream),
		resume:  seed.Rand(resumeStream),
		links:   make(map[linkKey]*link),
		down:    make(map[string]bool),
		conns:   make(map[*pconn]struct{}),
	}
}

// listen opens a listener at a new address: a kernel-chosen loopback port
// on the real clock, an address of the in-memory network on the virtual.
// at, if set, is the address to take (on the virtual clock only).
func (n *network) listen(at string) (net.Listener, error) {
	if n.mem != nil {
		return n.mem.Listen(at)
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

// dial connects to a listener that listen opened, here or in a member.
func (n *network) dial(ctx context.Context, addr string) (net.Conn, error) {
	if n.mem != nil {
		return n.mem.Dial(ctx, addr)
	}
	d := net.Dialer{Timeout: dialTimeout}
	return d.DialContext(ctx, "tcp", addr)
}

// addMember creates the links between a new member and every node.
func (n *network) addMember(name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, other := range n.members {
		n.links[linkKey{name, other}] = newLink(linkKey{name, other})
		n.links[linkKey{other, name}] = newLink(linkKey{other, name})
	}
	for _, cl := range n.clients {
		n.links[linkKey{name, cl}] = newLink(linkKey{name, cl})
		n.links[linkKey{cl, name}] = newLink(linkKey{cl, name})
	}
	n.members = append(n.members, name)
	n.down[name] = true // until it has started
}

// addClient creates the links between a new client and every member. A
// name already known keeps its links.
func (n *network) addClient(name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.isClient(name) {
		return
	}
	for _, m := range n.members {
		n.links[linkKey{name, m}] = newLink(linkKey{name, m})
		n.links[linkKey{m, name}] = newLink(linkKey{m, name})
	}
	n.clients = append(n.clients, name)
}

func (n *network) isMember(name string) bool { return slices.Contains(n.members, name) }
func (n *network) isClient(name string) bool { return slices.Contains(n.clients, name) }

// nodeError explains why name is not a node; n.mu must be held.
func (n *network) nodeError(name string) error {
	return fmt.Errorf("%w %q (members: %v, clients: %v)", ErrUnknownNode, name, n.members, n.clients)
}

// link returns the directed link from→to, or an error naming what is wrong.
func (n *network) link(from, to string) (*link, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, ErrClosed
	}
	return n.linkLocked(from, to)
}

func (n *network) linkLocked(from, to string) (*link, error) {
	for _, name := range []string{from, to} {
		if !n.isMember(name) && !n.isClient(name) {
			return nil, n.nodeError(name)
		}
	}
	if from == to {
		return nil, fmt.Errorf("cluster: no link from %q to itself", from)
	}
	l, ok := n.links[linkKey{from, to}]
	if !ok {
		return nil, fmt.Errorf("cluster: no link %s→%s: links join a member to a member or to a client, never two clients", from, to)
	}
	return l, nil
}

func (l *link) condition() Condition {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.cond
}

// setLink sets the base condition of the directed link from→to.
func (n *network) setLink(from, to string, c Condition) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("cluster: link %s→%s: %w", from, to, err)
	}
	l, err := n.link(from, to)
	if err != nil {
		return err
	}
	l.setBase(c)
	return nil
}

// linksWhere returns the links for which keep is true, under n.mu.
func (n *network) linksWhere(keep func(linkKey) bool) ([]*link, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, ErrClosed
	}
	var out []*link
	for k, l := range n.links {
		if keep(k) {
			out = append(out, l)
		}
	}
	return out, nil
}

// partition blackholes the base of every link between nodes of different
// groups.
func (n *network) partition(groups [][]string) error {
	if len(groups) < 2 {
		return fmt.Errorf("cluster: a partition needs at least two groups, got %d", len(groups))
	}
	group := make(map[string]int)
	n.mu.Lock()
	for i, g := range groups {
		if len(g) == 0 {
			n.mu.Unlock()
			return fmt.Errorf("cluster: partition group %d is empty", i)
		}
		for _, name := range g {
			if !n.isMember(name) && !n.isClient(name) {
				err := n.nodeError(name)
				n.mu.Unlock()
				return err
			}
			if j, dup := group[name]; dup {
				n.mu.Unlock()
				return fmt.Errorf("cluster: %q is in partition groups %d and %d; a node belongs to one group", name, j, i)
			}
			group[name] = i
		}
	}
	n.mu.Unlock()
	links, err := n.linksWhere(func(k linkKey) bool {
		gf, okf := group[k.from]
		gt, okt := group[k.to]
		return okf && okt && gf != gt
	})
	if err != nil {
		return err
	}
	for _, l := range links {
		l.setBase(Blackholed())
	}
	return nil
}

// isolate blackholes the base of every link to and from name.
func (n *network) isolate(name string) error {
	return n.eachOfNode(name, func(l *link) { l.setBase(Blackholed()) })
}

// heal makes every link to and from the node called name healthy: base
// and layers alike.
func (n *network) heal(name string) error { return n.eachOfNode(name, (*link).clear) }

// eachOfNode calls do for every link to and from the node called name.
func (n *network) eachOfNode(name string, do func(*link)) error {
	n.mu.Lock()
	known := n.isMember(name) || n.isClient(name)
	var err error
	if !known {
		err = n.nodeError(name)
	}
	n.mu.Unlock()
	if err != nil {
		return err
	}
	links, err := n.linksWhere(func(k linkKey) bool { return k.from == name || k.to == name })
	if err != nil {
		return err
	}
	for _, l := range links {
		do(l)
	}
	return nil
}

// healAll makes every link healthy, base and layers alike.
func (n *network) healAll() error {
	links, err := n.linksWhere(func(linkKey) bool { return true })
	if err != nil {
		return err
	}
	for _, l := range links {
		l.clear()
	}
	return nil
}

// faulty lists the links that are not healthy, sorted.
func (n *network) faulty() []Link {
	links, _ := n.linksWhere(func(linkKey) bool { return true })
	var out []Link
	for _, l := range links {
		if c := l.condition(); c != Healthy {
			out = append(out, Link{From: l.key.from, To: l.key.to, Condition: c})
		}
	}
	slices.SortFunc(out, func(a, b Link) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.To, b.To))
	})
	return out
}

// sampleDelay draws a chunk's delay from the condition, with the
// network's latency added.
func (n *network) sampleDelay(c Condition) time.Duration {
	d := n.jitter(c.Delay, c.Jitter)
	if n.latency > 0 {
		d += n.jitter(n.latency, n.latency/2)
	}
	return d
}

// jitter draws from [d-j, d+j], floored at 0.
func (n *network) jitter(d, j time.Duration) time.Duration {
	if j == 0 {
		return d
	}
	n.rngMu.Lock()
	x := time.Duration(n.rng.Int64N(int64(2*j) + 1))
	n.rngMu.Unlock()
	return max(0, d-j+x)
}

// register admits a new proxied connection, unless the network is closed,
// either end is down (a member not running, a crashed client), or one of
// its links rejects connections.
func (n *network) register(c *pconn) error {
	n.mu.Lock()
	switch {
	case n.closed:
		n.mu.Unlock()
		return ErrClosed
	case n.down[c.member] || (c.from != "" && n.down[c.from]):
		n.mu.Unlock()
		return errors.New("cluster: node down")
	}
	n.conns[c] = struct{}{}
	n.mu.Unlock()
	for d, l := range c.links {
		if l == nil {
			continue
		}
		l.mu.Lock()
		rejected := l.cond.Mode == Reject
		if !rejected {
			l.conns[c] = direction(d)
		}
		l.mu.Unlock()
		if rejected {
			c.close(true)
			return fmt.Errorf("cluster: link %s→%s rejects connections", l.key.from, l.key.to)
		}
	}
	return nil
}

func (n *network) unregister(c *pconn) {
	for _, l := range c.links {
		if l != nil {
			l.mu.Lock()
			delete(l.conns, c)
			l.mu.Unlock()
		}
	}
	n.mu.Lock()
	delete(n.conns, c)
	n.mu.Unlock()
}

// setDown marks a node — a member that stops, a client that crashes — as
// down (or up again). Going down resets every connection to or from it, as
// the kernel does for the sockets of a process that dies; while it is down
// its new connections are refused. Its links keep their conditions.
func (n *network) setDown(node string, down bool) {
	n.mu.Lock()
	n.down[node] = down
	var victims []*pconn
	if down {
		for c := range n.conns {
			if c.member == node || c.from == node {
				victims = append(victims, c)
			}
		}
	}
	n.mu.Unlock()
	for _, c := range victims {
		c.close(true)
	}
}

// close stops every proxy, resets every connection and waits for every
// goroutine the network started.
func (n *network) close() {
	n.mu.Lock()
	n.closed = true
	proxies := n.proxies
	conns := make([]*pconn, 0, len(n.conns))
	for c := range n.conns {
		conns = append(conns, c)
	}
	n.mu.Unlock()
	n.cancel()
	for _, p := range proxies {
		p.ln.Close()
	}
	for _, c := range conns {
		c.close(true)
	}
	n.wg.Wait()
}

// connFrom returns who opened the proxied connection to member whose
// member-side end has the local address addr (what the member sees as its
// peer), or "".
func (n *network) connFrom(member, addr string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	for c := range n.conns {
		if c.member == member && c.b.LocalAddr().String() == addr {
			return c.from
		}
	}
	return ""
}
