package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/storage/datadir"
	"go.etcd.io/etcd/server/v3/storage/wal"

	"github.com/etcdsim/etcdsim/internal/memnet"
)

// joinBridge carries a joining member's bootstrap into the in-memory
// network on the virtual clock.
//
// A member that joins a running cluster (etcd's member add, then a start
// with no data of its own) asks the others for the membership and their
// versions before etcdserver.NewServer returns, with an HTTP round tripper
// of etcd's own that dials real TCP, at the peers' advertised addresses —
// which on the virtual clock are addresses of the in-memory network
// (127.0.X.Y:1, where nothing real listens). For as long as NewServer runs,
// the bridge listens on those addresses for real and pumps each accepted
// connection into the in-memory network, dialed as the joining member, so
// the requests cross the same proxies and link conditions as every other
// peer message. The bubble's clock stands still meanwhile (a goroutine
// waiting on a real socket is never durably blocked): a join takes no
// virtual time. Once the member's round trippers dial the in-memory network
// (usePeerDialer) the real connections are closed and the bridge is gone.
//
// Listening on port 1 takes root, or net.ipv4.ip_unprivileged_port_start
// at most 1 (Docker's default is 0).
type joinBridge struct {
	n    *memnet.Net
	from string
	lns  []net.Listener
	wg   sync.WaitGroup // accept loops and pumps
	mu   sync.Mutex     // guards conns
	done bool
	// conns are the real and in-memory ends of every bridged connection.
	conns []net.Conn
}

// needsJoinBridge reports whether a member with configuration cfg will ask
// its peers for the membership while it starts: it joins an existing
// cluster and has no write-ahead log of its own yet.
func needsJoinBridge(existing bool, dataDir string) bool {
	return existing && !wal.Exist(datadir.ToWalDir(dataDir))
}

// bridgeJoin listens for real at each of addrs, the in-memory addresses of
// the joining member from's peers.
func bridgeJoin(n *memnet.Net, from string, addrs []string) (*joinBridge, error) {
	b := &joinBridge{n: n, from: from}
	defer joining(addrs)() // first starts of other clusters here wait for the bridge
	for _, addr := range addrs {
		ln, err := listenBusy(addr)
		if err != nil {
			b.close()
			return nil, fmt.Errorf("cluster: member %s joins on the virtual clock by listening for real at its peer %s for as long as etcd asks it for the membership: %w; this takes root or net.ipv4.ip_unprivileged_port_start=0, or use the real clock (Config.Clock: ClockReal, simrun -clock real)", from, addr, err)
		}
		b.lns = append(b.lns, ln)
		b.wg.Go(func() { b.accept(ln, addr) })
	}
	return b, nil
}

// listenBusy listens at addr, waiting out another join at the same
// address for up to two seconds of wall time: each in-memory network has
// addresses of its own (memnet's blocks), but another process's may, very
// rarely, have come to the same block.
func listenBusy(addr string) (net.Listener, error) {
	for try := 0; ; try++ {
		ln, err := net.Listen("tcp", addr)
		if err == nil || !errors.Is(err, syscall.EADDRINUSE) || try == 200 {
			return ln, err
		}
		wallSleep(10 * time.Millisecond)
	}
}

// wallSleep waits d of wall time, also inside a bubble, where time.Sleep
// would wait on the bubble's clock.
func wallSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	_ = syscall.Nanosleep(&ts, nil)
}

func (b *joinBridge) accept(ln net.Listener, addr string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !b.track(c) {
			return
		}
		b.wg.Go(func() { b.pump(c, addr) })
	}
}

// track records c to be closed by close, or closes it and reports false
// if the bridge is closing.
func (b *joinBridge) track(c net.Conn) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		c.Close()
		return false
	}
	b.conns = append(b.conns, c)
	return true
}

// pump carries c's bytes to addr on the in-memory network and back; a
// refused in-memory dial closes c, which the joining member reads as a
// peer that is down.
func (b *joinBridge) pump(c net.Conn, addr string) {
	m, err := b.n.DialAs(context.Background(), addr, b.from)
	if err != nil {
		c.Close()
		return
	}
	if !b.track(m) {
		c.Close()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		_, _ = io.Copy(m, c)
		m.Close()
	})
	_, _ = io.Copy(c, m)
	c.Close()
	wg.Wait()
}

// close stops listening and closes every bridged connection, and waits for
// the bridge's goroutines.
func (b *joinBridge) close() {
	if b == nil {
		return
	}
	for _, ln := range b.lns {
		ln.Close()
	}
	b.mu.Lock()
	b.done = true
	conns := b.conns
	b.conns = nil
	b.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	b.wg.Wait()
}
