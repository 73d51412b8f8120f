package cluster

import (
	"crypto/tls"
	"net"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/internal/memnet"
)

// A proxy listens on a kernel-chosen loopback port (an address of the
// in-memory network on the virtual clock) and forwards every
// connection to one member's real listener. Its address is what the rest of
// the cluster knows the member by, so it stays the same across restarts
// while the member's real ports change.
//
// Three kinds exist:
//   - a peer proxy stands at a member's advertised peer URL. It terminates
//     peer TLS and reads the sender from its client certificate (one per
//     member), so every connection — raft streams, pipeline and snapshot
//     POSTs, lease-keepalive forwarding, probes — is put on the right
//     member→member links whoever opened it;
//   - a client proxy joins one named client to one member, so the proxy
//     itself names the client;
//   - a front proxy is a member's advertised client URL, for the harness:
//     no link governs it, only the member being down.
type proxy struct {
	n       *network
	ln      net.Listener
	member  string      // the member behind the proxy
	client  string      // the client a client proxy serves; "" otherwise
	tlsConf *tls.Config // peer proxies only
	front   bool

	mu     sync.Mutex // guards target
	target string     // the member's real address; "" while it is not running
}

const (
	handshakeTimeout = 5 * time.Second
	dialTimeout      = 2 * time.Second
)

// newProxy starts a proxy for member; for a client proxy client is the
// client's name. at is the address to listen at, "" for any.
func (n *network) newProxy(member, client string, tlsConf *tls.Config, front bool, at string) (*proxy, error) {
	ln, err := n.listen(at)
	if err != nil {
		return nil, err
	}
	p := &proxy{n: n, ln: ln, member: member, client: client, tlsConf: tlsConf, front: front}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		ln.Close()
		return nil, ErrClosed
	}
	n.proxies = append(n.proxies, p)
	n.mu.Unlock()
	n.wg.Go(p.serve)
	return p, nil
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) setTarget(addr string) {
	p.mu.Lock()
	p.target = addr
	p.mu.Unlock()
}

func (p *proxy) getTarget() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.target
}

func (p *proxy) serve() {
	for {
		raw, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.n.wg.Go(func() { p.handle(raw) })
	}
}

// handle identifies who connected, dials the member and pumps both ways.
func (p *proxy) handle(raw net.Conn) {
	from, a := p.client, raw
	if p.tlsConf == nil && p.client == "" && !p.front {
		// A peer proxy on the virtual clock: the in-memory network knows
		// which member dialed.
		mc, ok := raw.(*memnet.Conn)
		if !ok || mc.From() == "" || mc.From() == p.member {
			resetConn(raw)
			return
		}
		from = mc.From()
	}
	if p.tlsConf != nil {
		tc := tls.Server(raw, p.tlsConf)
		raw.SetDeadline(time.Now().Add(handshakeTimeout))
		if err := tc.HandshakeContext(p.n.ctx); err != nil {
			resetConn(raw)
			return
		}
		raw.SetDeadline(time.Time{})
		certs := tc.ConnectionState().PeerCertificates
		if len(certs) == 0 || certs[0].Subject.CommonName == p.member {
			resetConn(raw)
			return
		}
		from, a = certs[0].Subject.CommonName, tc
	}
	target := p.getTarget()
	if target == "" {
		resetConn(raw)
		return
	}
	var links [2]*link
	if !p.front {
		var err error
		if links[toMember], err = p.n.link(from, p.member); err != nil {
			resetConn(raw)
			return
		}
		if links[fromMember], err = p.n.link(p.member, from); err != nil {
			resetConn(raw)
			return
		}
	}
	b, err := p.n.dial(p.n.ctx, target)
	if err != nil {
		resetConn(raw)
		return
	}
	c := &pconn{n: p.n, from: from, member: p.member, a: a, aRaw: raw, b: b, links: links, done: make(chan struct{})}
	if err := p.n.register(c); err != nil {
		setLinger0(b)
		b.Close()
		resetConn(raw)
		return
	}
	p.n.wg.Go(func() { c.pump(fromMember) })
	c.pump(toMember)
}

func resetConn(c net.Conn) {
	setLinger0(c)
	c.Close()
}
