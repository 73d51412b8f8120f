package memnet

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// Net is an in-memory network: listeners at made-up loopback addresses
// and dials matched to them. Create one with New.
type Net struct {
	mu    sync.Mutex // guards ls, next, block and used
	ls    map[string]*memListener
	next  int // dials so far, which number their local addresses
	block int // the block Listen takes addresses from (block.go)
	used  int // addresses taken from it; 0 before the first
}

// New returns an empty network.
func New() *Net { return &Net{ls: make(map[string]*memListener)} }

// BufSize is each direction's buffer of one connection.
const BufSize = 256 << 10

// Listen opens a listener at addr, or at a new address 127.B.C.D:1 of the
// network's own if addr is "" (block.go says why no two networks share
// one).
func (n *Net) Listen(addr string) (net.Listener, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if addr == "" {
		if n.used == 0 || n.used == blockSize {
			n.block, n.used = newBlock(), 0
		}
		n.used++
		addr = blockAddr(n.block, n.used)
	}
	if _, taken := n.ls[addr]; taken {
		return nil, fmt.Errorf("memnet: %s is in use on the in-memory network", addr)
	}
	l := &memListener{addr: Addr(addr), n: n, conns: make(chan *Conn), done: make(chan struct{})}
	n.ls[addr] = l
	return l, nil
}

// Dial connects to the listener at addr, or fails as a refused connection.
func (n *Net) Dial(ctx context.Context, addr string) (net.Conn, error) {
	return n.DialAs(ctx, addr, "")
}

// DialAs is Dial by the party called from, which the accepting end learns
// (Conn.From): how a cluster's peer proxy on the virtual clock knows which
// member dialed.
func (n *Net) DialAs(ctx context.Context, addr, from string) (net.Conn, error) {
	n.mu.Lock()
	l := n.ls[addr]
	n.next++
	local := Addr(fmt.Sprintf("127.0.255.%d:%d", 1+n.next%250, 1024+n.next))
	n.mu.Unlock()
	refused := func(why string) error {
		return &net.OpError{Op: "dial", Net: "tcp", Addr: Addr(addr), Err: fmt.Errorf("connection refused: %s", why)}
	}
	if l == nil {
		return nil, refused("nothing listens at " + addr + " on the in-memory network")
	}
	client, server := Pair(local, l.addr, BufSize)
	server.from = from
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, refused("the listener at " + addr + " closed")
	case <-ctx.Done():
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: Addr(addr), Err: ctx.Err()}
	}
}

// Addr is an address on the network; it says it is TCP, as what it
// stands in for is.
type Addr string

func (a Addr) Network() string { return "tcp" }
func (a Addr) String() string  { return string(a) }

// memListener hands each dial's server end to Accept.
type memListener struct {
	addr  Addr
	n     *Net
	conns chan *Conn
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
