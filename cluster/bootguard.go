package cluster

// A fresh member's etcd asks its peers, before etcdserver.NewServer
// returns, whether it was bootstrapped already (isMemberBootstrapped in
// etcd's cluster_util.go): an HTTP GET of /members to each peer's
// advertised address, with a round tripper of etcd's own that dials real
// TCP. On the virtual clock those addresses are the in-memory network's
// (127.B.C.D:1), where nothing real listens, so the dial is refused at
// once and the member starts. But a cluster that is joining a member
// listens for real at its own peers' addresses for as long as its join
// lasts (joinBridge). memnet gives each network a block of addresses of
// its own, from a start the process id sets, so two clusters meet only if
// two processes' blocks do; if they do, a fresh member that dials then is
// answered by the other cluster, or, if that cluster's join waits on its
// own frozen clock, never: its goroutines wait on a real socket, which is
// never durably blocked, and its bubble's clock stands still at 0 for
// good, in net/http.send under NewServer.
//
// So while a virtual cluster's first members start, their peer addresses
// are reserved for real: a socket is bound at each, without
// SO_REUSEADDR and without listening. A connection to a bound socket that
// does not listen is refused, as before; and no listener can bind there
// meanwhile (a bind conflicts with a socket that lacks SO_REUSEADDR), so
// no join elsewhere can answer in its place. A reservation costs a file
// descriptor and no goroutine, so clusters in different bubbles of one
// process share it (reserved counts them); a join bridge that holds an
// address is waited out, as joins wait out each other (listenBusy), and a
// join of this process that waits for an address takes it before any new
// reservation (joining).
//
// Binding port 1 takes the privilege a join takes (vjoin.go); without it
// nothing is reserved, and nothing can be: a join bridge elsewhere could
// not listen there either.

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/etcdsim/etcdsim/internal/wallclock"
)

// reserved holds this process's reservations, by address. The address
// space it guards is the machine's, so the table is the process's: one
// reservation per address, however many clusters start at once.
var reserved = struct {
	mu sync.Mutex // guards fds
	// fds maps a reserved address to its socket and how many starting
	// clusters hold it.
	fds map[string]*reservation
	// joins counts, by address, the joins of this process waiting to
	// listen there (joinBridge): no new reservation is taken meanwhile,
	// so that overlapping starts cannot keep a join out.
	joins map[string]int
}{fds: map[string]*reservation{}, joins: map[string]int{}}

type reservation struct {
	fd   int
	refs int
}

// reserveWait is how long, in wall time, a reservation waits for another
// program's listener (another cluster's join) to leave an address. A
// variable for the test, which holds the addresses it squats on no longer
// than it must.
var reserveWait = 5 * time.Second

// peerReservation is what reservePeers holds; release gives it back.
type peerReservation struct{ addrs []string }

// reserveFirstStart reserves the peer addresses of c's first members on
// the virtual clock (nil on the real one, where they are real).
func (c *Cluster) reserveFirstStart() (*peerReservation, error) {
	if c.net.mem == nil || c.cfg.MemberBinaries {
		return nil, nil
	}
	var addrs []string
	for _, m := range c.members {
		addrs = append(addrs, m.peer.addr())
	}
	return reservePeers(addrs)
}

// reservePeers reserves every address in addrs (host:port, IPv4) for real
// until release, all at once or none, so that it never holds some while it
// waits for others. It waits up to reserveWait of wall time for a listener
// of another program to leave an address, and then fails, naming it.
func reservePeers(addrs []string) (*peerReservation, error) {
	start := wallclock.Now() // the bubble's clock stands still while this waits
	for {
		r, busy, err := tryReserve(addrs)
		switch {
		case err != nil:
			return nil, fmt.Errorf("cluster: reserving the in-memory peer address %s for real while the members start: %w", busy, err)
		case busy == "":
			return r, nil
		case wallclock.Since(start) >= reserveWait:
			return nil, fmt.Errorf("cluster: the members' first start asks their peers for real at the in-memory address %s, and another program has listened there for %v (another cluster's join on the virtual clock, stuck?): "+
				"starting now could have a member wait on that program for good; stop it, or use the real clock (Config.Clock: ClockReal, simrun -clock real)", busy, reserveWait)
		}
		wallSleep(10 * time.Millisecond)
	}
}

// tryReserve reserves every address in addrs, or none and names the first
// that is busy (or failed, with err). An address this process may not bind
// (no privilege for its port) is left out.
func tryReserve(addrs []string) (_ *peerReservation, busy string, err error) {
	reserved.mu.Lock()
	defer reserved.mu.Unlock()
	r := &peerReservation{}
	for _, addr := range addrs {
		var fd int
		var err error
		if reserved.joins[addr] > 0 {
			err = syscall.EADDRINUSE // a join of this process waits for the address: let it in first
		} else if res := reserved.fds[addr]; res != nil {
			res.refs++
		} else if fd, err = bindOnly(addr); err == nil {
			reserved.fds[addr] = &reservation{fd: fd, refs: 1}
		}
		switch {
		case err == nil:
			r.addrs = append(r.addrs, addr)
		case errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM):
		default:
			r.releaseLocked()
			if errors.Is(err, syscall.EADDRINUSE) {
				return nil, addr, nil
			}
			return nil, addr, err
		}
	}
	return r, "", nil
}

// joining marks addrs as wanted by a join of this process until the
// returned function is called: reservations wait for the join.
func joining(addrs []string) (done func()) {
	reserved.mu.Lock()
	defer reserved.mu.Unlock()
	for _, a := range addrs {
		reserved.joins[a]++
	}
	return func() {
		reserved.mu.Lock()
		defer reserved.mu.Unlock()
		for _, a := range addrs {
			if reserved.joins[a]--; reserved.joins[a] == 0 {
				delete(reserved.joins, a)
			}
		}
	}
}

// release gives back r's addresses; the last holder of one closes its
// socket. It is safe on a nil r.
func (r *peerReservation) release() {
	if r == nil {
		return
	}
	reserved.mu.Lock()
	defer reserved.mu.Unlock()
	r.releaseLocked()
}

func (r *peerReservation) releaseLocked() {
	for _, addr := range r.addrs {
		res := reserved.fds[addr]
		if res.refs--; res.refs == 0 {
			syscall.Close(res.fd)
			delete(reserved.fds, addr)
		}
	}
	r.addrs = nil
}

// bindOnly binds a TCP socket at addr without SO_REUSEADDR and does not
// listen, and returns its descriptor.
func bindOnly(addr string) (int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return -1, err
	}
	ip := net.ParseIP(host).To4()
	p, err := strconv.Atoi(port)
	if ip == nil || err != nil {
		return -1, fmt.Errorf("%s is not an IPv4 address and port", addr)
	}
	syscall.ForkLock.RLock() // no child started meanwhile inherits it
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, err
	}
	sa := &syscall.SockaddrInet4{Port: p}
	copy(sa.Addr[:], ip)
	if err := syscall.Bind(fd, sa); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}
