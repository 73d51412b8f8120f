package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/etcdsim/etcdsim/cluster"
)

// linkLedger keeps, for every link an active fault has changed, the
// condition it had before any fault and the conditions each active fault
// put on it, newest last. A link shows its newest condition; when a fault
// heals, its conditions go and the link shows the next newest, or its
// first condition once no fault is left on it. So overlapping faults on
// one link heal in any order without undoing each other.
type linkLedger struct {
	// mu guards links, and is held across the cluster calls that apply a
	// change so that the ledger and the network agree.
	mu    sync.Mutex
	links map[linkKey]*linkLayers
}

type linkKey struct{ from, to string }

type linkLayers struct {
	base   cluster.Condition
	layers []linkLayer
}

type linkLayer struct {
	owner *linkSet
	cond  cluster.Condition
}

// linkSet is one fault's changes to links.
type linkSet struct {
	c       *cluster.Cluster
	ledger  *linkLedger
	touched []linkKey
}

func (e *Env) links() *linkSet { return &linkSet{c: e.c, ledger: &e.ledger} }

// set gives the directed link from→to the condition cond for as long as
// the fault lasts.
func (s *linkSet) set(from, to string, cond cluster.Condition) error {
	l := s.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	k := linkKey{from, to}
	ll := l.links[k]
	if ll == nil {
		base, err := s.c.LinkCondition(from, to)
		if err != nil {
			return err
		}
		ll = &linkLayers{base: base}
	}
	if err := s.c.SetLink(from, to, cond); err != nil {
		return err
	}
	if l.links == nil {
		l.links = make(map[linkKey]*linkLayers)
	}
	l.links[k] = ll
	ll.layers = append(ll.layers, linkLayer{owner: s, cond: cond})
	s.touched = append(s.touched, k)
	return nil
}

// both sets both directions between a and b.
func (s *linkSet) both(a, b string, cond cluster.Condition) error {
	return errors.Join(s.set(a, b, cond), s.set(b, a, cond))
}

// restore takes the fault's conditions off every link it touched.
func (s *linkSet) restore() error {
	l := s.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for _, k := range s.touched {
		ll := l.links[k]
		if ll == nil {
			continue // restored already
		}
		ll.layers = slices.DeleteFunc(ll.layers, func(x linkLayer) bool { return x.owner == s })
		want := ll.base
		if n := len(ll.layers); n > 0 {
			want = ll.layers[n-1].cond
		} else {
			delete(l.links, k)
		}
		if err := s.c.SetLink(k.from, k.to, want); err != nil {
			errs = append(errs, err)
		}
	}
	s.touched = nil
	return errors.Join(errs...)
}

// heal is the healFunc of a fault that only changed links.
func (s *linkSet) heal(context.Context) (string, error) { return "", s.restore() }

// peers returns the nodes name has links with: every other member, and
// every client if name is a member; every member if name is a client.
func peers(sh shape, name string) []string {
	var out []string
	for _, m := range sh.members {
		if m != name {
			out = append(out, m)
		}
	}
	if slices.Contains(sh.members, name) {
		out = append(out, sh.clients...)
	}
	return out
}

// linkChange is a condition for one directed link.
type linkChange struct {
	from, to string
	set      cluster.Condition
}

// linkFault builds a fault that changes, for each node its target resolves
// to, the links with each of its peers as cond says.
func linkFault(action string, t Target, kind nodeKind, param string, cond func(node, peer string) []linkChange) Fault {
	return Fault{
		action:  action,
		targets: []Target{t},
		param:   param,
		kind:    kind,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			ls := x.env.links()
			sh := x.env.shape()
			for _, n := range x.targets[0] {
				for _, p := range peers(sh, n) {
					for _, ch := range cond(n, p) {
						if err := ls.set(ch.from, ch.to, ch.set); err != nil {
							return ls.heal, "", fmt.Errorf("link %s→%s: %w", ch.from, ch.to, err)
						}
					}
				}
			}
			return ls.heal, "", nil
		},
	}
}
