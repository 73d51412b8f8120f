package cluster

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// memNet is the virtual clock's network: listeners at made-up loopback
// addresses and dials matched to them, in memory. Its connections are
// pipes of its own (mempipe.go) — buffered, waiting on sync.Cond, with
// deadlines on timers — so when the cluster runs in a synctest bubble a
// goroutine waiting on the network is durably blocked and the bubble's
// clock moves on.
//
// Nothing here is a fault: every link of the cluster is still a proxy with
// pumps (proxy.go, pconn.go), as on the real clock; memNet only carries
// their bytes.
type memNet struct {
	mu   sync.Mutex // guards ls and next
	ls   map[string]*memListener
	next int
}

func newMemNet() *memNet { return &memNet{ls: make(map[string]*memListener)} }

// memBufSize is each direction's buffer of one connection.
const memBufSize = 256 << 10

// listen opens a listener at addr, or at a new address 127.0.X.Y:1 if addr
// is "": port 1 of loopback refuses at once, should a real dial of one
// escape.
func (n *memNet) listen(addr string) (net.Listener, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if addr == "" {
		n.next++
		addr = fmt.Sprintf("127.0.%d.%d:1", 10+n.next/250, 1+n.next%250)
	}
	if _, taken := n.ls[addr]; taken {
		return nil, fmt.Errorf("cluster: in-memory network: %s is in use", addr)
	}
	l := &memListener{addr: memAddr(addr), n: n, conns: make(chan *memConn), done: make(chan struct{})}
	n.ls[addr] = l
	return l, nil
}

// dial connects to the listener at addr, or fails as a refused connection.
func (n *memNet) dial(ctx context.Context, addr string) (net.Conn, error) {
	return n.dialAs(ctx, addr, "")
}

// dialAs is dial by the member called from, which the accepting end learns
// (memConn.from): how a peer proxy on the virtual clock knows who dialed.
func (n *memNet) dialAs(ctx context.Context, addr, from string) (net.Conn, error) {
	n.mu.Lock()
	l := n.ls[addr]
	n.next++
	local := memAddr(fmt.Sprintf("127.0.255.%d:%d", 1+n.next%250, 1024+n.next))
	n.mu.Unlock()
	refused := func(why string) error {
		return &net.OpError{Op: "dial", Net: "tcp", Addr: memAddr(addr), Err: fmt.Errorf("connection refused: %s", why)}
	}
	if l == nil {
		return nil, refused("nothing listens at " + addr + " on the in-memory network")
	}
	client, server := memConnPair(local, l.addr, memBufSize)
	server.from = from
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, refused("the listener at " + addr + " closed")
	case <-ctx.Done():
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: memAddr(addr), Err: ctx.Err()}
	}
}

type memAddr string

func (a memAddr) Network() string { return "tcp" }
func (a memAddr) String() string  { return string(a) }

// memListener hands each dial's server end to Accept.
type memListener struct {
	addr  memAddr
	n     *memNet
	conns chan *memConn
	done  chan struct{} // closed by Close
	once  sync.Once
}

func (l *memListener) Addr() net.Addr { return l.addr }

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() {
		l.n.mu.Lock()
		if l.n.ls[string(l.addr)] == l {
			delete(l.n.ls, string(l.addr))
		}
		l.n.mu.Unlock()
		close(l.done)
	})
	return nil
}
