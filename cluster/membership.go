package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// AddMember adds a fresh member to the running cluster (etcd's member add,
// then a start that joins the existing cluster) and waits until it serves.
// Clients created for every member get a link to it too.
//
// etcd refuses a member change until the leader has been connected to a
// quorum for 5 s (its strict reconfiguration check, which protects quorum),
// so just after a start or a partition AddMember waits, retrying until ctx
// ends.
func (c *Cluster) AddMember(ctx context.Context) (*Member, error) {
	if n := len(c.Members()); n >= MaxMembers {
		return nil, fmt.Errorf("cluster: cannot add a member to %d; at most %d", n, MaxMembers)
	}
	lead, err := c.Leader(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: adding a member: %w", err)
	}
	cli, err := c.harnessClient(lead)
	if err != nil {
		return nil, err
	}
	m, err := c.newMember()
	if err != nil {
		return nil, err
	}
	var id uint64
	if err := retry(ctx, func(ctx context.Context) error {
		resp, err := cli.MemberAdd(ctx, []string{m.PeerURL()})
		if err == nil {
			id = resp.Member.ID
		}
		return err
	}); err != nil {
		m.markRemoved()
		return nil, fmt.Errorf("cluster: adding member %s: %w", m.name, err)
	}
	c.waitMembersKnow(ctx, id, m)
	if err := m.start("existing"); err != nil {
		return nil, err
	}
	if err := m.waitReady(ctx); err != nil {
		return nil, err
	}
	if err := c.linkClientsTo(m); err != nil {
		return m, err
	}
	return m, nil
}

// RemoveMember removes the member called name from the cluster (etcd's
// member remove, asked of another member) and shuts it down. A removed
// member leaves Members and cannot restart.
func (c *Cluster) RemoveMember(ctx context.Context, name string) error {
	m, err := c.Member(name)
	if err != nil {
		return err
	}
	var via *Member
	for _, o := range c.Members() {
		if o != m && o.Running() {
			via = o
			break
		}
	}
	if via == nil {
		return fmt.Errorf("cluster: cannot remove %s: no other member is running to ask", name)
	}
	cli, err := c.harnessClient(via)
	if err != nil {
		return err
	}
	id := m.ID()
	if err := retry(ctx, func(ctx context.Context) error {
		_, err := cli.MemberRemove(ctx, id)
		return err
	}); err != nil {
		return fmt.Errorf("cluster: removing member %s: %w", name, err)
	}
	m.lifeMu.Lock()
	m.mu.Lock()
	s, state := m.s, m.state
	m.state = stateRemoved
	m.mu.Unlock()
	if state == stateRunning {
		shutdown(s, c.net, name, false)
	}
	m.lifeMu.Unlock()
	c.unlinkClientsFrom(m)
	return nil
}

// joinWait is how long AddMember waits for one member to count the new
// one among its members.
const joinWait = 5 * time.Second

// waitMembersKnow waits until every other running member has applied the
// addition of member id, as far as each answers within joinWait. A
// joining member asks the peers for the membership and takes the first
// answer: from a member that has not yet applied the addition, the list
// is one short and the join fails ("member count is unequal"). A member
// that does not answer (cut off, say) is passed over; the joining member
// cannot reach it either.
func (c *Cluster) waitMembersKnow(ctx context.Context, id uint64, added *Member) {
	for _, o := range c.Members() {
		if o == added || !o.Running() {
			continue
		}
		cli, err := c.harnessClient(o)
		if err != nil {
			continue
		}
		wctx, cancel := context.WithTimeout(ctx, joinWait)
		_ = retry(wctx, func(ctx context.Context) error {
			resp, err := cli.MemberList(ctx) // linearizable: o has applied all before it answers
			if err != nil {
				return err
			}
			for _, mm := range resp.Members {
				if mm.ID == id {
					return nil
				}
			}
			return fmt.Errorf("%s does not list the new member yet", o.name)
		})
		cancel()
	}
}

func (m *Member) markRemoved() {
	m.mu.Lock()
	m.state = stateRemoved
	m.mu.Unlock()
}

// linkClientsTo gives every client created for all members a link to m,
// and its *clientv3.Client the new endpoint.
func (c *Cluster) linkClientsTo(m *Member) error {
	c.mu.Lock()
	var all []*namedClient
	for _, nc := range c.clients {
		if nc.allMembers {
			all = append(all, nc)
		}
	}
	c.mu.Unlock()
	var errs []error
	for _, nc := range all {
		errs = append(errs, c.linkClientTo(nc, m))
	}
	return errors.Join(errs...)
}

func (c *Cluster) linkClientTo(nc *namedClient, m *Member) error {
	nc.lifeMu.Lock()
	defer nc.lifeMu.Unlock()
	c.mu.Lock()
	linked := nc.linked
	c.mu.Unlock()
	if !linked {
		return nil // dropped meanwhile
	}
	p, err := c.net.newProxy(m.name, nc.name, nil, false, "")
	if err != nil {
		return fmt.Errorf("cluster: client %q: proxy to %s: %w", nc.name, m.name, err)
	}
	m.mu.Lock()
	p.setTarget(m.clientAddr)
	m.mu.Unlock()
	c.mu.Lock()
	nc.proxies[m.name] = p
	eps, cli := nc.endpoints(), nc.cli
	c.mu.Unlock()
	if cli != nil {
		cli.SetEndpoints(eps...)
	}
	return nil
}

// unlinkClientsFrom drops m from every client's endpoints.
func (c *Cluster) unlinkClientsFrom(m *Member) {
	c.mu.Lock()
	var touched []*namedClient
	for _, nc := range c.clients {
		if _, ok := nc.proxies[m.name]; ok {
			touched = append(touched, nc)
		}
	}
	c.mu.Unlock()
	for _, nc := range touched {
		nc.lifeMu.Lock()
		c.mu.Lock()
		delete(nc.proxies, m.name)
		eps, cli := nc.endpoints(), nc.cli
		c.mu.Unlock()
		if cli != nil && len(eps) > 0 {
			cli.SetEndpoints(eps...)
		}
		nc.lifeMu.Unlock()
	}
}

// retry calls f with a per-try timeout until it succeeds or ctx ends, and
// returns the last error.
func retry(ctx context.Context, f func(context.Context) error) error {
	for {
		tctx, cancel := context.WithTimeout(ctx, time.Second)
		err := f(tctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, context.Cause(ctx))
		case <-time.After(100 * time.Millisecond):
		}
	}
}
