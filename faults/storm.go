package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
)

// LeaderStorm moves leadership again and again for as long as it lasts:
// every interval it hands leadership to another running member, drawn from
// the schedule's random source. Each new leader refreshes every lease's
// TTL (etcd #9395, unless lease checkpointing is on), so a storm keeps the
// lease of a crashed client — and the lock it held — alive past its TTL.
func LeaderStorm(every time.Duration) Fault {
	return stormFault("leader-storm", every, 2, func(ctx context.Context, x *shot) (string, *cluster.Member, error) {
		c := x.env.c
		lead, err := c.Leader(ctx)
		if err != nil {
			return "", nil, err
		}
		var others []string
		for _, m := range c.Members() {
			if m != lead && m.Running() {
				others = append(others, m.Name())
			}
		}
		if len(others) == 0 {
			return "", nil, fmt.Errorf("no running member to move leadership to from %s", lead.Name())
		}
		to := others[x.rng.IntN(len(others))]
		if err := c.MoveLeader(ctx, to); err != nil {
			return "", nil, err
		}
		return lead.Name() + "→" + to, nil, nil
	})
}

// LeaderKillStorm kills the leader again and again for as long as it
// lasts: every interval it kills the member that leads, waits for the
// others to elect a new one, and restarts the killed member. It needs at
// least 3 members, so that the rest keep a quorum.
func LeaderKillStorm(every time.Duration) Fault {
	return stormFault("leader-kill-storm", every, 3, func(ctx context.Context, x *shot) (string, *cluster.Member, error) {
		c := x.env.c
		lead, err := c.Leader(ctx)
		if err != nil {
			return "", nil, err
		}
		if err := lead.Kill(); err != nil {
			return "", nil, err
		}
		next, err := c.Leader(ctx)
		if err != nil {
			return "", lead, err
		}
		if err := lead.Restart(ctx); err != nil {
			return "", lead, err
		}
		return lead.Name() + "→" + next.Name(), nil, nil
	})
}

// stormFault repeats step every interval in a goroutine of its own until
// healed. step returns a change for the record and, if it left a member
// down, that member, for the heal to restart.
func stormFault(action string, every time.Duration, minMembers int, step func(context.Context, *shot) (string, *cluster.Member, error)) Fault {
	return Fault{
		action:  action,
		targets: []Target{AllMembers},
		implied: true,
		param:   "every " + every.String(),
		kind:    membersOnly,
		check: func(s shape) error {
			if every <= 0 {
				return fmt.Errorf("interval %v must be positive", every)
			}
			if len(s.members) < minMembers {
				return fmt.Errorf("a %d-member cluster is too small; it needs at least %d", len(s.members), minMembers)
			}
			return nil
		},
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			// The storm outlives apply's context; only the heal ends it.
			sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
			done := make(chan struct{})
			// Written by the storm goroutine, read by the heal after done.
			var changes, failures []string
			var down []*cluster.Member
			go func() {
				defer close(done)
				timer := time.NewTimer(0)
				defer timer.Stop()
				for {
					select {
					case <-sctx.Done():
						return
					case <-timer.C:
					}
					stepCtx, cancel := context.WithTimeout(sctx, x.env.timeout)
					change, left, err := step(stepCtx, x)
					cancel()
					if left != nil && !slices.Contains(down, left) {
						down = append(down, left)
					}
					if sctx.Err() != nil {
						return
					}
					if err != nil {
						failures = append(failures, err.Error())
					} else {
						changes = append(changes, change)
					}
					timer.Reset(every)
				}
			}()
			heal := func(ctx context.Context) (string, error) {
				stop()
				select {
				case <-done:
				case <-ctx.Done():
					return "", fmt.Errorf("the storm did not stop: %w", context.Cause(ctx))
				}
				var errs []error
				for _, m := range down {
					if !m.Running() {
						if err := m.Restart(ctx); err != nil {
							errs = append(errs, fmt.Errorf("restarting %s: %w", m.Name(), err))
						}
					}
				}
				detail := fmt.Sprintf("%d leader changes: %s", len(changes), strings.Join(changes, " "))
				if len(failures) > 0 {
					detail += fmt.Sprintf("; %d failed, first: %s", len(failures), failures[0])
				}
				if len(errs) > 0 {
					return detail, errors.Join(errs...)
				}
				return detail, nil
			}
			return heal, "", nil
		},
	}
}
