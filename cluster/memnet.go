package cluster

import (
	"context"
	"fmt"
	"net"
	"sync"

	"google.golang.org/grpc/test/bufconn"
)

// memNet is the virtual clock's network: listeners at made-up loopback
// addresses and dials matched to them, in memory. Its connections are
// grpc's bufconn pipes — buffered, waiting on sync.Cond, with deadlines on
// timers — made by the goroutine that dials or listens, so when the cluster
// runs in a synctest bubble a goroutine waiting on the network is durably
// blocked and the bubble's clock moves on.
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
	l := &memListener{Listener: bufconn.Listen(memBufSize), addr: memAddr(addr), n: n}
	n.ls[addr] = l
	return l, nil
}

// dial connects to the listener at addr, or fails as a refused connection.
func (n *memNet) dial(ctx context.Context, addr string) (net.Conn, error) {
	n.mu.Lock()
	l := n.ls[addr]
	n.mu.Unlock()
	if l == nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("connection refused: nothing listens at %s on the in-memory network", addr)}
	}
	c, err := l.DialContext(ctx)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("%s: %w", addr, err)}
	}
	return &memConn{Conn: c, local: memAddr("client-of-" + addr), remote: l.addr}, nil
}

type memAddr string

func (a memAddr) Network() string { return "tcp" }
func (a memAddr) String() string  { return string(a) }

type memListener struct {
	*bufconn.Listener
	addr memAddr
	n    *memNet
}

func (l *memListener) Addr() net.Addr { return l.addr }

func (l *memListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &memConn{Conn: c, local: l.addr, remote: memAddr("peer-of-" + string(l.addr))}, nil
}

func (l *memListener) Close() error {
	l.n.mu.Lock()
	if l.n.ls[string(l.addr)] == l {
		delete(l.n.ls, string(l.addr))
	}
	l.n.mu.Unlock()
	return l.Listener.Close()
}

// memConn gives a bufconn pipe addresses that look like TCP's, for the
// logs and for the code that parses them.
type memConn struct {
	net.Conn
	local, remote memAddr
}

func (c *memConn) LocalAddr() net.Addr  { return c.local }
func (c *memConn) RemoteAddr() net.Addr { return c.remote }
