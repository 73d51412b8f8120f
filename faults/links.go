package faults

import (
	"context"
	"fmt"
	"slices"

	"github.com/etcdsim/etcdsim/cluster"
)

// linkSet is one fault's changes to links: a cluster.Overlay, which holds
// them over the links' own conditions until the fault heals. Overlapping
// faults on one link heal in any order without undoing each other, or
// what was set on the cluster directly meanwhile.
type linkSet struct{ o *cluster.Overlay }

func (e *Env) links() *linkSet { return &linkSet{o: e.c.NewOverlay()} }

// set gives the directed link from→to the condition cond for as long as
// the fault lasts.
func (s *linkSet) set(from, to string, cond cluster.Condition) error { return s.o.Set(from, to, cond) }

// both sets both directions between a and b.
func (s *linkSet) both(a, b string, cond cluster.Condition) error { return s.o.SetBoth(a, b, cond) }

// restore takes the fault's conditions off every link it touched.
func (s *linkSet) restore() error {
	s.o.Remove()
	return nil
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
