package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/etcdsim/etcdsim/cluster"
)

// linkSet changes links and remembers how to change them back. A heal
// gives each link the condition it had before, unless something else has
// changed it since: a heal never undoes another fault's work.
type linkSet struct {
	c       *cluster.Cluster
	changed []linkChange
}

type linkChange struct {
	from, to    string
	before, set cluster.Condition
}

// set gives the directed link from→to the condition cond.
func (s *linkSet) set(from, to string, cond cluster.Condition) error {
	before, err := s.c.LinkCondition(from, to)
	if err != nil {
		return err
	}
	if err := s.c.SetLink(from, to, cond); err != nil {
		return err
	}
	s.changed = append(s.changed, linkChange{from: from, to: to, before: before, set: cond})
	return nil
}

// both sets both directions between a and b.
func (s *linkSet) both(a, b string, cond cluster.Condition) error {
	return errors.Join(s.set(a, b, cond), s.set(b, a, cond))
}

// restore undoes every change, last first.
func (s *linkSet) restore() error {
	var errs []error
	for i := len(s.changed) - 1; i >= 0; i-- {
		ch := s.changed[i]
		cur, err := s.c.LinkCondition(ch.from, ch.to)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if cur != ch.set {
			continue // another fault has changed it since
		}
		if err := s.c.SetLink(ch.from, ch.to, ch.before); err != nil {
			errs = append(errs, err)
		}
	}
	s.changed = nil
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

// linkFault builds a fault that sets links between each resolved node and
// the nodes given by around.
func linkFault(action string, t Target, kind nodeKind, param string, cond func(node, peer string) []linkChange) Fault {
	return Fault{
		action:  action,
		targets: []Target{t},
		param:   param,
		kind:    kind,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			ls := &linkSet{c: x.env.c}
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
