package faults

import (
	"context"
	"errors"
	"fmt"

	"github.com/etcdsim/etcdsim/cluster"
)

// Kill crashes each member t resolves to, as kill -9 would: its
// connections reset, raft stops without handing leadership over. The heal
// restarts it from its data directory.
func Kill(t Target) Fault { return haltFault("kill", t, (*cluster.Member).Kill) }

// Stop shuts each member t resolves to down gracefully: a leader first
// hands leadership over. The heal starts it again.
func Stop(t Target) Fault { return haltFault("stop", t, (*cluster.Member).Stop) }

func haltFault(action string, t Target, halt func(*cluster.Member) error) Fault {
	return Fault{
		action:  action,
		targets: []Target{t},
		kind:    membersOnly,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			var down []*cluster.Member
			heal := func(ctx context.Context) (string, error) {
				var errs []error
				for _, m := range down {
					if err := m.Restart(ctx); err != nil && !errors.Is(err, cluster.ErrRunning) {
						errs = append(errs, fmt.Errorf("restarting %s: %w", m.Name(), err))
					}
				}
				return "", errors.Join(errs...)
			}
			for _, name := range x.targets[0] {
				m, err := x.env.c.Member(name)
				if err != nil {
					return heal, "", err
				}
				if err := halt(m); err != nil {
					return heal, "", err
				}
				down = append(down, m)
			}
			return heal, "", nil
		},
	}
}
