package program

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// A program is handed its client's endpoints in init: on the real clock,
// the proxies of that client's links alone, so that every fault aimed at
// the client — a partition, a blackhole, a pause of its links — reaches
// what the program sends. A program that dials the members' own addresses
// instead (from a config file, or by asking the cluster for its members
// and following them) goes around its links: the faults never reach it,
// and a run that passes says nothing of the recipe. Nothing in the answers
// shows it; the program's sockets do. So the session looks at the TCP
// connections the program holds (remoteAddrs) after its first few ops and
// when it is closed, and names a program that held connections, none of
// them to its endpoints.

// looksAfterOps is how many ops answered ok the session looks at the
// program's connections after, besides at Close.
const looksAfterOps = 3

// bypass is what the session has seen of its program's connections.
type bypass struct {
	mu      sync.Mutex // guards the fields below
	looks   int        // looks taken after ops
	crossed bool       // a connection to one of its endpoints was seen
	other   []string   // addresses it was connected to that are not its endpoints
	found   string     // the finding, once Close has looked
}

// look notes the program's connections now. afterOp looks count against
// looksAfterOps; once a connection through its links is seen, no more
// looks are taken.
func (s *session) look(afterOp bool) {
	b := &s.bypass
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.crossed || afterOp && b.looks >= looksAfterOps {
		return
	}
	if afterOp {
		b.looks++
	}
	addrs, err := remoteAddrs(s.cmd.Process.Pid)
	if err != nil {
		return // it went, or this system cannot say
	}
	own := endpointAddrs(s.endpoints)
	for _, a := range addrs {
		if slices.Contains(own, a) {
			b.crossed = true
			return
		}
		if !slices.Contains(b.other, a) {
			b.other = append(b.other, a)
		}
	}
}

// Bypassing says, once the program has been closed, that it held
// connections to etcd none of which went through its client's links, in
// a sentence a run notes as the recipe's fault; "" if it used its links,
// or no connection of its was seen.
func (s *session) Bypassing() string {
	b := &s.bypass
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.found
}

// judgeBypass sets what Bypassing says, from every look taken.
func (s *session) judgeBypass() {
	b := &s.bypass
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.crossed || len(b.other) == 0 {
		return
	}
	slices.Sort(b.other)
	b.found = fmt.Sprintf("process %q%s bypasses the faults: it was connected to %s, and never to the endpoints init handed it (%s), its client's links; "+
		"the faults aimed at its client never reach it, so its run says nothing of the recipe: dial the endpoints init hands the program, and no other address",
		s.cfg.Argv, s.clientText(), strings.Join(b.other, ", "), strings.Join(s.endpoints, ", "))
}

// endpointAddrs are the host:port addresses of etcd endpoints given as
// URLs or as addresses.
func endpointAddrs(eps []string) []string {
	var out []string
	for _, e := range eps {
		if u, err := url.Parse(e); err == nil && u.Host != "" {
			e = u.Host
		}
		if host, port, err := net.SplitHostPort(e); err == nil {
			if ip := net.ParseIP(host); ip != nil {
				host = ip.String()
			}
			out = append(out, net.JoinHostPort(host, port))
		}
	}
	return out
}
