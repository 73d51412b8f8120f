package cluster

import (
	"fmt"
	"slices"
	"strings"
)

// A client of clientv3 connects to every endpoint it is given and sends
// each unary request to the next connection in turn (gRPC's round robin),
// but a stream stays on the connection it was opened on for its whole
// life: the lease keepalive stream that keeps a Session alive, and each
// watch. The member at the other end of that connection is the one the
// client is pinned to: freeze it, or let its bytes vanish, and the
// session's renewals stop although the client has other members to talk
// to — until gRPC gives the connection up (its keepalive, when the client
// configured one) or the stream fails.

// Methods whose streams pin a client, in the order PinnedMember asks.
const (
	leaseKeepAliveMethod = "/etcdserverpb.Lease/LeaseKeepAlive"
	watchMethod          = "/etcdserverpb.Watch/Watch"
)

// PinnedMember returns the member the named client is pinned to: the one
// whose connection carries the client's lease keepalive stream; failing
// that, its watch stream; failing that, the only member it has a link to.
// It is an error if the client has no such stream and links to several
// members, or if its streams of one kind are on several members (it names
// them). A client with no stream yet is ErrNotPinned.
func (c *Cluster) PinnedMember(client string) (string, error) {
	nc, err := c.lookupClient(client)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	links := make([]string, 0, len(nc.proxies))
	for m := range nc.proxies {
		links = append(links, m)
	}
	c.mu.Unlock()
	nc.lifeMu.Unlock()
	for _, method := range []string{leaseKeepAliveMethod, watchMethod} {
		var on []string
		for _, m := range c.Members() {
			s := m.running()
			if s == nil {
				continue
			}
			for _, addr := range s.requests().openStreams(method) {
				if c.net.connFrom(m.name, addr) == client && !slices.Contains(on, m.name) {
					on = append(on, m.name)
				}
			}
		}
		switch len(on) {
		case 0:
			continue
		case 1:
			return on[0], nil
		default:
			return "", fmt.Errorf("cluster: client %q has %s streams on several members (%s); it is pinned to none of them alone", client, streamName(method), strings.Join(on, ", "))
		}
	}
	if len(links) == 1 {
		return links[0], nil
	}
	slices.Sort(links)
	return "", fmt.Errorf("%w: client %q has no open lease keepalive or watch stream, and links to %d members (%s); start its session or watch first, or link it to one member (ClientConfig.Members)", ErrNotPinned, client, len(links), strings.Join(links, ", "))
}

func streamName(method string) string {
	if method == leaseKeepAliveMethod {
		return "lease keepalive"
	}
	return "watch"
}
