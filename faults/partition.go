package faults

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/etcdsim/etcdsim/cluster"
)

// Isolate cuts each node t resolves to off from every other node, both
// ways: a member hears from no peer and no client, a client reaches no
// member. Isolate(Minority) leaves each member of the minority alone;
// Partition(Minority) keeps them together.
func Isolate(t Target) Fault {
	return linkFault("isolate", t, anyNodes, "", func(n, p string) []linkChange {
		return []linkChange{{from: n, to: p, set: cluster.Blackholed()}, {from: p, to: n, set: cluster.Blackholed()}}
	})
}

// Partition splits the members in two: those t resolves to, and the rest.
// Links across the split are cut both ways; clients keep reaching every
// member. Partition(Minority) and Partition(Majority) are the classic
// majority/minority split; Partition(Leader) strands the leader. Aimed at
// clients, it cuts them off from every member.
func Partition(t Target) Fault {
	return Fault{
		action:  "partition",
		targets: []Target{t},
		check: func(s shape) error {
			if t.onMembers() && t.size(s) >= len(s.members) {
				return fmt.Errorf("%v is every member of a %d-member cluster: no one is left on the other side", t, len(s.members))
			}
			return nil
		},
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			side := x.targets[0]
			var rest []string
			for _, m := range x.env.shape().members {
				if !slices.Contains(side, m) {
					rest = append(rest, m)
				}
			}
			if len(rest) == 0 {
				return noHeal, "", fmt.Errorf("no member is left on the other side of %v", side)
			}
			ls := x.env.links()
			for _, a := range side {
				for _, b := range rest {
					if err := ls.both(a, b, cluster.Blackholed()); err != nil {
						return ls.heal, "", err
					}
				}
			}
			return ls.heal, fmt.Sprintf("%v | %v", side, rest), nil
		},
	}
}

// Ring arranges the members in a ring, in an order drawn from the
// schedule's random source, and cuts every link except those between near
// neighbours, so that each member reaches a majority — itself and its
// neighbours — but every member sees a different majority. With 5 members
// each reaches the one on either side. It needs at least 4 members.
func Ring() Fault {
	return Fault{
		action:  "ring",
		targets: []Target{AllMembers},
		implied: true,
		kind:    membersOnly,
		check: func(s shape) error {
			if len(s.members) < 4 {
				return fmt.Errorf("a ring of %d members cuts nothing; it needs at least 4", len(s.members))
			}
			return nil
		},
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			members := x.targets[0]
			n := len(members)
			order := make([]string, n)
			for i, j := range x.rng.Perm(n) {
				order[i] = members[j]
			}
			reach := ringReach(n)
			ls := x.env.links()
			for i := range n {
				for j := i + 1; j < n; j++ {
					if d := min(j-i, n-(j-i)); d > reach {
						if err := ls.both(order[i], order[j], cluster.Blackholed()); err != nil {
							return ls.heal, "", err
						}
					}
				}
			}
			return ls.heal, fmt.Sprintf("ring %s; each member reaches %d on either side", strings.Join(order, "-"), reach), nil
		},
	}
}

// ringReach is how many neighbours on either side a member of a ring of n
// keeps: the fewest that make itself and them a majority.
func ringReach(n int) int { return (n/2 + 1) / 2 }

// Cut cuts the links from the members from resolves to to the members to
// resolves to, one way only: Cut(Leader, Follower) stops the leader's
// messages to one follower while the follower's answers still arrive.
func Cut(from, to Target) Fault {
	return Fault{
		action:  "cut",
		targets: []Target{from, to},
		kind:    membersOnly,
		check: func(s shape) error {
			if from == to && from.size(s) == 1 && from.kind != followerTarget {
				return fmt.Errorf("%v → %v cuts a member from itself", from, to)
			}
			return nil
		},
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			ls := x.env.links()
			for _, a := range x.targets[0] {
				if slices.Contains(x.targets[1], a) {
					return ls.heal, "", fmt.Errorf("%s is on both ends of the cut", a)
				}
				for _, b := range x.targets[1] {
					if err := ls.set(a, b, cluster.Blackholed()); err != nil {
						return ls.heal, "", err
					}
				}
			}
			return ls.heal, fmt.Sprintf("%v → %v", x.targets[0], x.targets[1]), nil
		},
	}
}
