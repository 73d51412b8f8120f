package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/internal/bubble"
	"github.com/etcdsim/etcdsim/internal/memnet"
)

// reservable skips t where this process may not bind port 1, as a join
// on the virtual clock skips it.
func reservable(t *testing.T, addr string) {
	t.Helper()
	fd, err := bindOnly(addr)
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
		t.Skipf("binding %s takes privilege this process lacks: %v", addr, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
}

// A reserved address refuses connections at once, as an address nobody
// holds does, and no listener can bind it until the last holder releases
// it.
func TestReservedPeerAddressRefusesAndExcludes(t *testing.T) {
	const addr = "127.0.99.1:1" // an address no in-memory network hands out
	reservable(t, addr)
	a, err := reservePeers([]string{addr})
	if err != nil {
		t.Fatal(err)
	}
	b, err := reservePeers([]string{addr}) // a second cluster starting at once shares it
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.DialTimeout("tcp", addr, 10*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dialing a reserved address: %v, want a refused connection", err)
	}
	if ln, err := net.Listen("tcp", addr); !errors.Is(err, syscall.EADDRINUSE) {
		if err == nil {
			ln.Close()
		}
		t.Errorf("listening at a reserved address: %v, want address in use", err)
	}
	a.release()
	if ln, err := net.Listen("tcp", addr); !errors.Is(err, syscall.EADDRINUSE) {
		if err == nil {
			ln.Close()
		}
		t.Errorf("listening at an address one of two holders released: %v, want address in use", err)
	}
	b.release()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening at an address both holders released: %v", err)
	}
	ln.Close()
	var none *peerReservation
	none.release()
}

// squat listens for real at addrs, accepts, and never answers, as a
// cluster whose join is stuck holds its join bridge open; it returns the
// function that ends it.
func squat(t *testing.T, addrs []string) func() {
	t.Helper()
	var lns []net.Listener
	var conns []net.Conn
	var mu sync.Mutex // guards conns
	var wg sync.WaitGroup
	for _, addr := range addrs {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			for _, ln := range lns {
				ln.Close()
			}
			t.Skipf("cannot listen at %s for the test: %v", addr, err)
		}
		lns = append(lns, ln)
		wg.Go(func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		})
	}
	return func() {
		for _, ln := range lns {
			ln.Close()
		}
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}
}

// nextNetworkAddrs returns the first n addresses the next in-memory
// network of this process will hand out — the block after a probe's, as
// memnet hands blocks out in turn (internal/memnet/block.go) — standing
// for another process's network that came to the same block.
func nextNetworkAddrs(t *testing.T, n int) []string {
	t.Helper()
	probe := memnet.New()
	ln, err := probe.Listen("")
	if err != nil {
		t.Fatal(err)
	}
	var b, c, d int
	if _, err := fmt.Sscanf(ln.Addr().String(), "127.%d.%d.%d:1", &b, &c, &d); err != nil {
		t.Fatalf("memnet's address %s is not 127.B.C.D:1: %v", ln.Addr(), err)
	}
	ln.Close()
	const nblocks = 254 * 256
	next := ((b-1)*256 + c + 1) % nblocks
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("127.%d.%d.%d:1", 1+next/256, next%256, i))
	}
	return out
}

// A cluster's first start on the virtual clock is never answered by
// another program listening at its members' in-memory peer addresses (as
// another process's cluster could, joining a member, were its block of
// addresses the same).
// Before the reservation, each fresh member's etcd asked that program
// whether it was bootstrapped, over real TCP under NewServer, and waited
// on the real socket: the bubble's clock stood still at 0 for good (in
// net/http.send), and the watchdog called the run frozen a minute later.
// Now the start waits reserveWait for the program to leave, and then
// fails, naming the address.
func TestFirstStartIsNotAnsweredByAStrangerAtAPeerAddress(t *testing.T) {
	addrs := nextNetworkAddrs(t, 12)
	reservable(t, addrs[0])
	old := reserveWait
	reserveWait = 300 * time.Millisecond // other programs' starts meanwhile wait this one out
	defer func() { reserveWait = old }()
	stop := squat(t, addrs)
	var err error
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		var c *Cluster
		c, err = Start(context.Background(), Config{Clock: ClockVirtual})
		c.Close()
	})
	stop()
	if err == nil || !strings.Contains(err.Error(), "another program has listened there") {
		t.Fatalf("starting a cluster while another program held its peer addresses: %v; want an error that names the address", err)
	}
	t.Log(err)
}

// A reservation takes all its addresses or none, and a join of this
// process that waits for an address goes before any new reservation.
func TestReservationIsAllOrNoneAndLetsAJoinFirst(t *testing.T) {
	const a, b = "127.0.99.2:1", "127.0.99.3:1"
	reservable(t, a)
	old := reserveWait
	reserveWait = 50 * time.Millisecond
	defer func() { reserveWait = old }()

	ln, err := net.Listen("tcp", b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reservePeers([]string{a, b}); err == nil || !strings.Contains(err.Error(), b) {
		t.Errorf("reserving two addresses, one of them listened at: %v; want an error naming %s", err, b)
	}
	ln.Close()
	if ln, err := net.Listen("tcp", a); err != nil {
		t.Errorf("the address a failed reservation would have taken first is still held: %v", err)
	} else {
		ln.Close()
	}

	held, err := reservePeers([]string{a})
	if err != nil {
		t.Fatal(err)
	}
	done := joining([]string{a})
	if _, err := reservePeers([]string{a}); err == nil {
		t.Error("a reservation shared an address a join of this process waits for")
	}
	held.release()
	ln, err = net.Listen("tcp", a) // the join listens once the earlier holder is gone
	if err != nil {
		t.Fatalf("the join could not listen after the reservation it waited for was released: %v", err)
	}
	ln.Close()
	done()
	r, err := reservePeers([]string{a})
	if err != nil {
		t.Fatalf("reserving after the join: %v", err)
	}
	r.release()
}
