package cluster

// This file is the network half of Cluster's API: every directed link
// between two members, or between a client and a member, can be set.

// SetLink sets the condition of the directed link from→to: member→member,
// client→member (requests) or member→client (responses).
func (c *Cluster) SetLink(from, to string, cond Condition) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	return c.net.setLink(from, to, cond)
}

// SetLinks sets the condition of both directions between a and b.
func (c *Cluster) SetLinks(a, b string, cond Condition) error {
	if err := c.SetLink(a, b, cond); err != nil {
		return err
	}
	return c.net.setLink(b, a, cond)
}

// LinkCondition returns the condition of the directed link from→to.
func (c *Cluster) LinkCondition(from, to string) (Condition, error) {
	if err := c.checkOpen(); err != nil {
		return Condition{}, err
	}
	l, err := c.net.link(from, to)
	if err != nil {
		return Condition{}, err
	}
	return l.condition(), nil
}

// Links returns every link that is not healthy, sorted by from then to.
func (c *Cluster) Links() []Link {
	if c.checkOpen() != nil {
		return nil
	}
	return c.net.faulty()
}

// Partition blackholes every link between nodes (members or clients) of
// different groups, both ways. Links within a group, and links of nodes in
// no group, are left as they are; HealAll undoes it.
func (c *Cluster) Partition(groups ...[]string) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	return c.net.partition(groups)
}

// Isolate blackholes every link to and from the member or client called
// name: a member then hears from no peer and no client, a client reaches no
// member.
func (c *Cluster) Isolate(name string) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	return c.net.isolate(name)
}

// Heal makes every link to and from the member or client called name
// healthy, undoing Isolate, and leaves every other link as it is.
func (c *Cluster) Heal(name string) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	return c.net.heal(name)
}

// HealAll makes every link healthy. Connections that lost bytes to a
// blackhole are reset, so no stale half-message is ever delivered.
func (c *Cluster) HealAll() error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	return c.net.healAll()
}
