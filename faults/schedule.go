package faults

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
)

// Schedule is a plan of faults over time that Run (or Start) carries out
// against an Env. Carrying it out heals every fault it injected before it
// returns — when the schedule is over, when it is stopped, when ctx ends,
// and when a fault panics — and then, unless ctx ended (its caller is
// leaving, and closes the cluster rather than wait), waits until the
// cluster is healthy: every member up, a leader agreed, a read through
// every member.
//
// Timeline and Nemesis are schedules. A schedule of your own can arm
// triggers by arming a Timeline of them inside its Arm.
type Schedule interface {
	// Validate reports, before a run, every reason the schedule cannot
	// run against c: unknown targets, faults that cannot apply to a
	// cluster of c's size, bad durations, overlapping faults.
	Validate(c *cluster.Cluster) error
	// Plan returns the faults the schedule would fire, with their targets
	// resolved against the cluster as it is now, without firing any. Two
	// plans from one seed against the same cluster state are equal.
	Plan(ctx context.Context, env *Env) ([]Planned, error)
	// Arm validates the schedule against env's cluster and arms its
	// triggers, so that operations recorded from the moment it returns
	// fire them, and returns the function that carries the rest out. That
	// function blocks until the schedule is over and healed; it returns
	// every injection and heal error, joined, and ctx's cause if ctx ended
	// before the schedule was over.
	Arm(ctx context.Context, env *Env) (run func() error, err error)
}

// Run carries s out against env and returns when it is over and healed.
// See Schedule.
func Run(ctx context.Context, env *Env, s Schedule) error {
	run, err := s.Arm(ctx, env)
	if err != nil {
		return err
	}
	return run()
}

// Planned is one fault of a plan.
type Planned struct {
	// At is when the fault fires, from the start of the schedule. For a
	// Nemesis it assumes injections and heals take no time.
	At time.Duration `json:"at"`
	// For is how long it lasts; 0 for an instant fault.
	For   time.Duration `json:"for"`
	Fault string        `json:"fault"`
	// Targets are the names its targets resolve to now; Err says why they
	// do not, if they do not (a lock nobody holds yet).
	Targets []string `json:"targets,omitempty"`
	Err     string   `json:"error,omitempty"`
}

// plan resolves every target of f, for a plan: the names, or why they
// cannot be resolved now.
func (f Fault) plan(ctx context.Context, env *Env, rng *rand.Rand) ([]string, string) {
	var names [][]string
	for _, t := range f.targets {
		ns, err := t.resolve(ctx, env, rng)
		if err != nil {
			return nil, err.Error()
		}
		names = append(names, ns)
	}
	return flatten(names), ""
}

// shapeOf is what validation knows of c.
func shapeOf(c *cluster.Cluster) shape {
	var s shape
	for _, m := range c.Members() {
		s.members = append(s.members, m.Name())
	}
	s.clients = c.ClientNames()
	return s
}

// ValidateFor reports, before any cluster exists, every reason s cannot run
// against a cluster with these members and named clients. Timelines and
// nemeses are checked in full; a schedule of your own is checked when it
// runs.
func ValidateFor(s Schedule, members, clients []string) error {
	v, ok := s.(interface{ validate(shape) error })
	if !ok {
		return nil
	}
	return v.validate(shape{members: members, clients: clients})
}
