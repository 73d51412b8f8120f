package faults

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
)

// Schedule is a plan of faults over time that Run carries out against an
// Env. Run heals every fault it injected before it returns — when the
// schedule is over, when ctx ends, and when a fault panics — and then
// waits until the cluster is healthy: every member up, a leader agreed, a
// read through every member.
//
// Timeline and Nemesis are schedules.
type Schedule interface {
	// Validate reports, before a run, every reason the schedule cannot
	// run against c: unknown targets, faults that cannot apply to a
	// cluster of c's size, bad durations, overlapping faults.
	Validate(c *cluster.Cluster) error
	// Plan returns the faults the schedule would fire, with their targets
	// resolved against the cluster as it is now, without firing any. Two
	// plans from one seed against the same cluster state are equal.
	Plan(ctx context.Context, env *Env) ([]Planned, error)
	// Run carries the schedule out. It returns every injection and heal
	// error, joined, and ctx's cause if ctx ended before the schedule was
	// over.
	Run(ctx context.Context, env *Env) error
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

// resolveAll resolves every target of f, for a plan.
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
