package faults

import (
	"context"
	"fmt"
	"strings"
)

// Replace removes each member t resolves to from the cluster and adds a
// fresh one in its place (etcd's member remove, then member add and a
// start with an empty data directory), one after another, while the
// workload goes on. The new member has a new name; the record's detail
// says which.
func Replace(t Target) Fault {
	return Fault{
		action:  "replace",
		targets: []Target{t},
		kind:    membersOnly,
		instant: true,
		check: func(s shape) error {
			if len(s.members) < 2 {
				return fmt.Errorf("a 1-member cluster cannot lose its only member")
			}
			return nil
		},
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			var done []string
			for _, old := range x.targets[0] {
				if err := x.env.c.RemoveMember(ctx, old); err != nil {
					return noHeal, strings.Join(done, ", "), fmt.Errorf("removing %s: %w", old, err)
				}
				m, err := x.env.c.AddMember(ctx)
				if err != nil {
					return noHeal, strings.Join(append(done, old+" removed"), ", "), fmt.Errorf("adding a member in place of %s: %w", old, err)
				}
				done = append(done, old+" replaced by "+m.Name())
			}
			return noHeal, strings.Join(done, ", "), nil
		},
	}
}
