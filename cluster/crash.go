package cluster

import (
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// CrashClient crashes the client called name, as if its process died: its
// *clientv3.Client is closed, so every keep-alive and watch it ran stops and
// nothing is released — its leases expire on the server after their TTL.
// Every connection on its links is reset and new ones are refused until
// RestartClient, which also cuts off code that dials etcd itself through
// ClientEndpoints(name). Client(name) fails with ErrCrashed meanwhile.
//
// A crash is a state of the client, not a condition of its links: the
// links keep whatever conditions faults gave them, and a fault may still
// change them while the client is down (faults hold links with overlays;
// rewriting links here would fight them). After RestartClient the client's
// links are exactly as those faults left them, so a client crashed while
// isolated comes back isolated.
func (c *Cluster) CrashClient(name string) error {
	nc, err := c.lookupClient(name)
	if err != nil {
		return err
	}
	defer nc.lifeMu.Unlock()
	c.mu.Lock()
	crashed, cli := nc.crashed, nc.cli
	nc.crashed, nc.cli = true, nil
	c.mu.Unlock()
	if crashed {
		return fmt.Errorf("%w: %q already", ErrCrashed, name)
	}
	// Reset first, as a dying process's sockets are: the closing client's
	// goodbyes (stream cancels, GOAWAY) then reach no member.
	c.net.setDown(name, true)
	if cli != nil {
		cli.Close()
	}
	c.endLife(nc)
	return nil
}

// RestartClient brings back a client that CrashClient took down, as a
// restarted process: its links accept connections again (with the
// conditions faults left on them) and it gets a fresh *clientv3.Client on
// the same endpoints, made with the same ClientConfig, which it returns and
// Client(name) returns from now on. Nothing of the crashed client's state
// survives: leases, watches and sessions must be made anew.
func (c *Cluster) RestartClient(name string) (*clientv3.Client, error) {
	nc, err := c.lookupClient(name)
	if err != nil {
		return nil, err
	}
	defer nc.lifeMu.Unlock()
	c.mu.Lock()
	crashed := nc.crashed
	c.mu.Unlock()
	if !crashed {
		return nil, fmt.Errorf("cluster: client %q is not crashed; RestartClient follows CrashClient", name)
	}
	c.net.setDown(name, false) // before dialing: a refused first dial backs off for a second
	cli, err := c.dial(nc)
	if err != nil {
		c.net.setDown(name, true)
		return nil, err
	}
	c.mu.Lock()
	nc.crashed = false
	c.mu.Unlock()
	return cli, nil
}
