package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// pollInterval is how often Leader re-reads every member's view of the
// leader while no quorum agrees; nothing notifies it of a change, it polls.
// readThrough waits ten of them between failed reads.
const pollInterval = 5 * time.Millisecond

// Leader waits until a quorum of the members agrees on a running leader that
// also believes it leads, and returns it. A member cut off from the others
// that still thinks it leads is not returned. The error on ctx's end says
// what each member believed.
func (c *Cluster) Leader(ctx context.Context) (*Member, error) {
	for {
		if err := c.checkOpen(); err != nil {
			return nil, err
		}
		if m := c.agreedLeader(); m != nil {
			return m, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %s: %w", ErrNoLeader, c.views(), context.Cause(ctx))
		case <-time.After(pollInterval):
		}
	}
}

// agreedLeader returns the leader a quorum agrees on, or nil.
func (c *Cluster) agreedLeader() *Member {
	members := c.Members()
	votes := make(map[uint64]int)
	for _, m := range members {
		if id := m.LeaderID(); id != 0 {
			votes[id]++
		}
	}
	quorum := len(members)/2 + 1
	for _, m := range members {
		id := m.ID()
		if id != 0 && votes[id] >= quorum && m.IsLeader() {
			return m
		}
	}
	return nil
}

// views describes what each member believes, for error messages.
func (c *Cluster) views() string {
	var b strings.Builder
	for i, m := range c.Members() {
		if i > 0 {
			b.WriteString("; ")
		}
		if !m.Running() {
			fmt.Fprintf(&b, "%s down", m.name)
			continue
		}
		lead := "none"
		if id := m.LeaderID(); id != 0 {
			lead = fmt.Sprintf("%x", id)
			if other := c.memberByID(id); other != nil {
				lead = other.name
			}
		}
		fmt.Fprintf(&b, "%s term %d sees leader %s", m.name, m.Term(), lead)
	}
	return b.String()
}

func (c *Cluster) memberByID(id uint64) *Member {
	for _, m := range c.Members() {
		if m.ID() == id {
			return m
		}
	}
	return nil
}

// MoveLeader hands leadership to the member called name and waits until a
// quorum agrees it leads.
func (c *Cluster) MoveLeader(ctx context.Context, name string) error {
	to, err := c.Member(name)
	if err != nil {
		return err
	}
	if !to.Running() {
		return fmt.Errorf("%w: cannot move leadership to %s", ErrNotRunning, name)
	}
	for {
		lead, err := c.Leader(ctx)
		if err != nil {
			return err
		}
		if lead == to {
			return nil
		}
		s := lead.running()
		if s == nil {
			continue // it died meanwhile; ask again
		}
		if err := lead.transferLeadership(ctx, s, to.ID()); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("cluster: moving leadership from %s to %s: %w", lead.name, name, err)
			}
			continue // leadership changed under us; try again from the new leader
		}
	}
}

// WaitHealthy waits until every member runs and is ready, a quorum agrees on
// a leader, and a linearizable read succeeds through every member.
func (c *Cluster) WaitHealthy(ctx context.Context) error {
	for _, m := range c.Members() {
		if !m.Running() {
			return fmt.Errorf("cluster: not healthy: %w: %s", ErrNotRunning, m.name)
		}
		if err := m.waitReady(ctx); err != nil {
			return err
		}
	}
	if _, err := c.Leader(ctx); err != nil {
		return err
	}
	for _, m := range c.Members() {
		if err := c.readThrough(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// readThrough does a linearizable read through m, retrying until ctx ends.
func (c *Cluster) readThrough(ctx context.Context, m *Member) error {
	cli, err := c.harnessClient(m)
	if err != nil {
		return err
	}
	for {
		rctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := cli.Get(rctx, "etcdsim/health")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: not healthy: a linearizable read through %s failed: %w", m.name, errors.Join(err, context.Cause(ctx)))
		case <-time.After(10 * pollInterval):
		}
	}
}

// harnessClient returns the harness's own client to m, through m's front
// proxy: no link governs it, so it sees the member as it is. It is made
// without holding c.mu: with auth on, clientv3.New authenticates, a round
// trip to m, and on the virtual clock a goroutine waiting for c.mu
// meanwhile would keep the bubble's clock, and so the round trip, from
// moving. Of two made at once, the first stored is kept.
func (c *Cluster) harnessClient(m *Member) (*clientv3.Client, error) {
	c.mu.Lock()
	err := c.openLocked()
	cli, ok := c.harness[m.name]
	c.mu.Unlock()
	if err != nil || ok {
		return cli, err
	}
	cli, err = clientv3.New(c.withRoot(clientv3.Config{Endpoints: []string{m.Endpoint()}, Logger: quietLogger(), DialOptions: c.DialOptions()}))
	if err != nil {
		return nil, fmt.Errorf("cluster: harness client for %s: %w", m.name, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.openLocked(); err != nil {
		cli.Close()
		return nil, err
	}
	if kept, ok := c.harness[m.name]; ok {
		cli.Close()
		return kept, nil
	}
	c.harness[m.name] = cli
	return cli, nil
}
