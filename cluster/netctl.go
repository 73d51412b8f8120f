package cluster

// This file is the network half of Cluster's API: every directed link
// between two members, or between a client and a member, can be set.
//
// The calls here set a link's base condition. Overlays (NewOverlay) lay
// conditions of their own over it for as long as their owners need, and
// the newest of those shows instead of the base; once they are removed,
// the base shows again, whatever it was set to meanwhile. Heal and HealAll
// clear base and overlays alike. See overlay.go.

// SetLink sets the base condition of the directed link from→to:
// member→member, client→member (requests) or member→client (responses).
// An overlay's condition on the link, if any, shows until it is removed.
func (c *Cluster) SetLink(from, to string, cond Condition) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	return c.net.setLink(from, to, cond)
}

// SetLinks sets the base condition of both directions between a and b.
func (c *Cluster) SetLinks(a, b string, cond Condition) error {
	if err := c.SetLink(a, b, cond); err != nil {
		return err
	}
	return c.net.setLink(b, a, cond)
}

// LinkCondition returns the condition in effect on the directed link
// from→to: the newest overlay's, or the base.
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

// Links returns every link whose condition in effect is not healthy,
// sorted by from then to.
func (c *Cluster) Links() []Link {
	if c.checkOpen() != nil {
		return nil
	}
	return c.net.faulty()
}

// Partition blackholes the base of every link between nodes (members or
// clients) of different groups, both ways. Links within a group, and links
// of nodes in no group, are left as they are; HealAll undoes it.
func (c *Cluster) Partition(groups ...[]string) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	return c.net.partition(groups)
}

// Isolate blackholes the base of every link to and from the member or
// client called name: a member then hears from no peer and no client, a
// client reaches no member. A link an overlay holds shows the overlay's
// condition until it is removed, and is blackholed from then on.
func (c *Cluster) Isolate(name string) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	return c.net.isolate(name)
}

// Heal makes every link to and from the member or client called name
// healthy at once, undoing Isolate, and leaves every other link as it is.
// It resets those links' base and drops every overlay's layer on them: the
// overlays keep their other links, and their Remove leaves these alone.
func (c *Cluster) Heal(name string) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	return c.net.heal(name)
}

// HealAll makes every link healthy: it resets every base and drops every
// overlay's layers, so a later Remove of those overlays changes nothing.
// Connections that lost bytes to a blackhole are reset, so no stale
// half-message is ever delivered.
func (c *Cluster) HealAll() error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	return c.net.healAll()
}
