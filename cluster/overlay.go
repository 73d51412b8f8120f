package cluster

import (
	"fmt"
	"slices"
	"sync"
)

// This file is the one ledger of link conditions. Every directed link has
// a base condition, which the Cluster's own calls set (SetLink, SetLinks,
// Partition, Isolate), and on top of it one layer per Overlay that has set
// the link, in the order they were set. The link carries the newest
// layer's condition, or its base when no layer is left. An overlay's
// Remove takes its layers off, so overlapping overlays on one link come
// off in any order, and a base set meanwhile shows once they are gone.
//
// Heal and HealAll are the only calls that reach under the overlays: they
// reset the base to Healthy and drop every layer on the links they heal.
// An overlay whose layer was dropped keeps its other links; its Remove
// then leaves the healed links alone, and a later Set lays a new layer.

// Overlay is one owner's conditions on links, laid over the links' base
// conditions until Remove: the way a fault holds links for as long as it
// lasts. Get one from Cluster.NewOverlay. An Overlay is safe for
// concurrent use.
type Overlay struct {
	c *Cluster

	mu      sync.Mutex // guards links and removed
	links   []*link    // every link it has set, each once
	removed bool
}

// layer is one overlay's condition on one link.
type layer struct {
	owner *Overlay
	cond  Condition
}

// NewOverlay returns an overlay on c's links that sets none yet.
func (c *Cluster) NewOverlay() *Overlay { return &Overlay{c: c} }

// Set lays cond over the directed link from→to: the link carries cond
// until the overlay is removed, another overlay sets the link later, or
// Heal or HealAll heals it. Setting a link the overlay has set already
// replaces its condition there, and makes it the newest layer.
func (o *Overlay) Set(from, to string, cond Condition) error {
	if err := cond.Validate(); err != nil {
		return fmt.Errorf("cluster: link %s→%s: %w", from, to, err)
	}
	if o.c == nil {
		return fmt.Errorf("%w: a zero Overlay belongs to no cluster; use Cluster.NewOverlay", ErrClosed)
	}
	if err := o.c.checkOpen(); err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.removed {
		return fmt.Errorf("cluster: link %s→%s: the overlay was removed", from, to)
	}
	l, err := o.c.net.link(from, to)
	if err != nil {
		return err
	}
	if !slices.Contains(o.links, l) {
		o.links = append(o.links, l)
	}
	l.lay(o, cond)
	return nil
}

// SetBoth lays cond over both directions between a and b.
func (o *Overlay) SetBoth(a, b string, cond Condition) error {
	if err := o.Set(a, b, cond); err != nil {
		return err
	}
	return o.Set(b, a, cond)
}

// Remove takes the overlay's layers off every link it set: each shows the
// next newest layer, or its base. Links that Heal or HealAll healed since
// are left as they are. Remove is idempotent, never fails, and works on a
// closed cluster; a removed overlay sets nothing more.
func (o *Overlay) Remove() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.removed = true
	for _, l := range o.links {
		l.drop(o)
	}
	o.links = nil
}

// setBase sets the link's base condition; layers over it stay.
func (l *link) setBase(c Condition) { l.update(func() { l.base = c }) }

// clear makes the link healthy: base Healthy, no layers.
func (l *link) clear() { l.update(func() { l.base, l.layers = Healthy, nil }) }

// lay puts o's layer with condition c on top.
func (l *link) lay(o *Overlay, c Condition) {
	l.update(func() {
		l.layers = slices.DeleteFunc(l.layers, func(y layer) bool { return y.owner == o })
		l.layers = append(l.layers, layer{owner: o, cond: c})
	})
}

// drop takes o's layer off, if it is still there.
func (l *link) drop(o *Overlay) {
	l.update(func() {
		l.layers = slices.DeleteFunc(l.layers, func(y layer) bool { return y.owner == o })
	})
}

// update changes the link's base or layers with change, then puts the
// condition now in effect on the link. Connections the new condition must
// end are reset: all of them for Reject, and for a heal those that lost
// bytes while blackholed.
func (l *link) update(change func()) {
	var victims []*pconn
	l.mu.Lock()
	change()
	c := l.base
	if n := len(l.layers); n > 0 {
		c = l.layers[n-1].cond
	}
	if c == l.cond {
		l.mu.Unlock()
		return
	}
	l.cond = c
	for pc, d := range l.conns {
		if c.Mode == Reject || (c.Mode != Blackhole && pc.tainted[d].Load()) {
			victims = append(victims, pc)
		}
	}
	l.mu.Unlock()
	for _, pc := range victims {
		pc.close(true) // outside l.mu: closing unregisters from the link
	}
}
