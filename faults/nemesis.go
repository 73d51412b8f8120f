package faults

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/seed"
)

// Nemesis is a random schedule in Jepsen's style: it draws a fault from a
// weighted mix, injects it, heals it after a drawn duration, rests, and
// draws again. Every choice — which fault, how long, whom — comes from one
// random source seeded by Seed, so a seed replays the same run. It reads
// and writes JSON with its faults as text and its durations as duration
// text (see MarshalJSON).
type Nemesis struct {
	Seed seed.Seed `json:"seed"`
	// Mix is the faults to draw from and their weights.
	Mix []Choice `json:"mix"`
	// MinFor and MaxFor bound how long a drawn fault lasts, uniformly;
	// instant faults ignore them.
	MinFor time.Duration `json:"min_for"`
	MaxFor time.Duration `json:"max_for"`
	// Quiet is the rest between a heal and the next fault.
	Quiet time.Duration `json:"quiet"`
	// Steps is how many faults to draw. 0 means until ctx ends, which
	// is then the run's normal end.
	Steps int `json:"steps"`
}

// Choice is a fault of a Nemesis's mix and its weight.
type Choice struct {
	Weight int   `json:"weight"`
	Fault  Fault `json:"fault"`
}

// Weighted is a Choice: f with weight w.
func Weighted(w int, f Fault) Choice { return Choice{Weight: w, Fault: f} }

// Validate reports every reason the nemesis cannot run against c.
func (n Nemesis) Validate(c *cluster.Cluster) error { return n.validate(shapeOf(c)) }

func (n Nemesis) validate(s shape) error {
	errs := []error{n.checkDraws()}
	for i, ch := range n.Mix {
		if ch.Fault.apply == nil {
			continue // checkDraws said so
		}
		if err := ch.Fault.validate(s); err != nil {
			errs = append(errs, fmt.Errorf("faults: nemesis: choice %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// draw is one step of the nemesis: which fault, for how long, and the
// seed of its own random source. It always takes three values from root.
type draw struct {
	choice int
	d      time.Duration
	seed   uint64
}

func (n Nemesis) draw(root *rand.Rand) draw {
	total := 0
	for _, ch := range n.Mix {
		total += ch.Weight
	}
	w := root.IntN(total)
	choice := 0
	for i, ch := range n.Mix {
		if w < ch.Weight {
			choice = i
			break
		}
		w -= ch.Weight
	}
	d := n.MinFor + time.Duration(root.Int64N(int64(n.MaxFor-n.MinFor)+1))
	if n.Mix[choice].Fault.instant {
		d = 0
	}
	return draw{choice: choice, d: d, seed: root.Uint64()}
}

func (n Nemesis) root() *rand.Rand { return n.Seed.Rand(0) }

// Plan draws the nemesis's Steps faults and resolves their targets against
// the cluster as it is now. It needs Steps > 0.
func (n Nemesis) Plan(ctx context.Context, env *Env) ([]Planned, error) {
	if err := n.Validate(env.c); err != nil {
		return nil, err
	}
	if n.Steps == 0 {
		return nil, errors.New("faults: nemesis: Plan needs Steps > 0")
	}
	root := n.root()
	var out []Planned
	var at time.Duration
	for range n.Steps {
		dr := n.draw(root)
		f := n.Mix[dr.choice].Fault
		targets, err := f.plan(ctx, env, stepRand(dr.seed))
		out = append(out, Planned{At: at, For: dr.d, Fault: f.String(), Targets: targets, Err: err})
		at += dr.d + n.Quiet
	}
	return out, nil
}

// Run carries the nemesis out against env. See Schedule.
func (n Nemesis) Run(ctx context.Context, env *Env) error { return Run(ctx, env, n) }

// Arm validates the nemesis and returns the function that runs it. A
// nemesis has no triggers to arm. See Schedule.
func (n Nemesis) Arm(ctx context.Context, env *Env) (func() error, error) {
	if err := n.Validate(env.c); err != nil {
		return nil, err
	}
	return func() error { return n.run(ctx, env) }, nil
}

func (n Nemesis) run(ctx context.Context, env *Env) (err error) {
	r := newRunner(ctx, env)
	defer func() { err = errors.Join(err, r.close()) }()
	root := n.root()
	for k := 0; n.Steps == 0 || k < n.Steps; k++ {
		dr := n.draw(root)
		f := n.Mix[dr.choice].Fault
		r.fire(ctx, f, stepRand(dr.seed), fmt.Sprintf("nemesis step %d", k), dr.d)
		// Heal before the next fault.
		for {
			due, ok := r.nextDue()
			if !ok {
				break
			}
			if err := r.sleep(ctx, due, true); err != nil {
				return n.stopped(k, err)
			}
			r.healDue()
		}
		if err := r.sleep(ctx, env.clock.Now()+n.Quiet, true); err != nil {
			return n.stopped(k, err)
		}
	}
	return nil
}

// stopped is the result of a run whose context ended during step k.
func (n Nemesis) stopped(k int, err error) error {
	if n.Steps == 0 {
		return nil
	}
	return fmt.Errorf("faults: nemesis stopped at step %d of %d: %w", k, n.Steps, err)
}
