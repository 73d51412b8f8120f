package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/seed"
)

// Timeline is an explicit schedule: at t, for d, this fault; and, when the
// workload does something, for d, that fault. It reads and writes JSON
// with its faults as text and its durations as duration text (see
// MarshalJSON).
type Timeline struct {
	// Seed seeds every random choice of the run (which follower, which
	// minority, the ring's order).
	Seed seed.Seed `json:"seed"`
	// Steps fire at their time. Steps on targets that may be the same
	// node must not overlap in time.
	Steps []Step `json:"steps"`
	// Triggers fire when the workload records a matching operation, each
	// at most once.
	Triggers []Trigger `json:"triggers"`
	// End is when the run ends, counted from its start: it heals what is
	// still active then. 0 means when every step has fired and healed and,
	// if there are triggers, every trigger has fired and healed.
	End time.Duration `json:"end"`
}

// Step is one fault of a Timeline: at At, for For, Fault.
type Step struct {
	At    time.Duration `json:"at"`
	For   time.Duration `json:"for"` // 0 for an instant fault, positive otherwise
	Fault Fault         `json:"fault"`
}

// Trigger fires Fault when the workload records an operation that matches
// On, and heals it For later. The recording call injects it before it
// returns, so a fault aimed at LockHolder("L") on an acquire of L hits the
// new holder before its next step.
type Trigger struct {
	On    Match         `json:"on"`
	For   time.Duration `json:"for"` // 0 for an instant fault, positive otherwise
	Fault Fault         `json:"fault"`
}

// At is a Step: at, for d, f.
func At(at, d time.Duration, f Fault) Step { return Step{At: at, For: d, Fault: f} }

// On is a Trigger: when m happens, for d, f.
func On(m Match, d time.Duration, f Fault) Trigger { return Trigger{On: m, For: d, Fault: f} }

func (t Trigger) String() string {
	return fmt.Sprintf("%v on %v for %v", t.Fault, t.On, t.For)
}

// checkFor reports a duration that does not suit f.
func checkFor(f Fault, d time.Duration) error {
	switch {
	case d < 0:
		return fmt.Errorf("duration %v is negative", d)
	case f.instant && d != 0:
		return fmt.Errorf("%s is instant; give it no duration (got %v)", f.action, d)
	case !f.instant && d == 0:
		return fmt.Errorf("duration is zero; %s lasts until healed and needs a positive duration", f.action)
	}
	return nil
}

// Validate reports every reason the timeline cannot run against c.
func (tl Timeline) Validate(c *cluster.Cluster) error { return tl.validate(shapeOf(c)) }

func (tl Timeline) validate(s shape) error {
	var errs []error
	for i, st := range tl.Steps {
		var es []error
		if st.At < 0 {
			es = append(es, fmt.Errorf("time %v is negative", st.At))
		}
		if err := checkFor(st.Fault, st.For); err != nil {
			es = append(es, err)
		}
		if tl.End > 0 && st.At+st.For > tl.End {
			es = append(es, fmt.Errorf("it ends after the timeline's end %v", tl.End))
		}
		if err := st.Fault.validate(s); err != nil {
			es = append(es, err)
		}
		if err := errors.Join(es...); err != nil {
			errs = append(errs, fmt.Errorf("faults: step %d (%v): %w", i, st, err))
		}
	}
	for i, tr := range tl.Triggers {
		var es []error
		if err := tr.On.validate(); err != nil {
			es = append(es, err)
		}
		if err := checkFor(tr.Fault, tr.For); err != nil {
			es = append(es, err)
		}
		if err := tr.Fault.validate(s); err != nil {
			es = append(es, err)
		}
		if err := errors.Join(es...); err != nil {
			errs = append(errs, fmt.Errorf("faults: trigger %d (%v): %w", i, tr, err))
		}
	}
	if tl.End < 0 {
		errs = append(errs, fmt.Errorf("faults: timeline end %v is negative", tl.End))
	}
	for i, a := range tl.Steps {
		for j := i + 1; j < len(tl.Steps); j++ {
			b := tl.Steps[j]
			if !overlap(a, b) {
				continue
			}
			ta, tb, ok := collision(a.Fault, b.Fault)
			if !ok {
				continue
			}
			// Name the later step first: it is the one that overlaps.
			li, lj, la, lb := j, i, b, a
			if b.At < a.At {
				li, lj, la, lb = i, j, a, b
				ta, tb = tb, ta
			}
			why := fmt.Sprintf("%v and %v may be the same node", tb, ta)
			if ta == tb {
				why = fmt.Sprintf("both aim at %v", ta)
			}
			errs = append(errs, fmt.Errorf("faults: step %d (%v) overlaps step %d (%v): %s", li, la, lj, lb, why))
		}
	}
	return errors.Join(errs...)
}

// overlap reports whether two steps are active at once. An instant step
// is a point in time.
func overlap(a, b Step) bool {
	if a.For == 0 && b.For == 0 {
		return false
	}
	return a.At < b.At+max(b.For, 1) && b.At < a.At+max(a.For, 1)
}

// collision returns two targets of a and b that may resolve to a common
// node, if any.
func collision(a, b Fault) (Target, Target, bool) {
	for _, ta := range a.targets {
		for _, tb := range b.targets {
			if mayMeet(ta, tb) {
				return ta, tb, true
			}
		}
	}
	return Target{}, Target{}, false
}

// mayMeet reports whether two targets can resolve to a common node at one
// moment.
func mayMeet(a, b Target) bool {
	if a.onKeys() || b.onKeys() {
		return a.onKeys() && b.onKeys() &&
			(strings.HasPrefix(a.arg, b.arg) && b.kind == prefixTarget || strings.HasPrefix(b.arg, a.arg) && a.kind == prefixTarget || a.arg == b.arg)
	}
	if a.onMembers() != b.onMembers() {
		return false
	}
	if a == b {
		return true
	}
	pair := func(x, y targetKind) bool {
		return (a.kind == x && b.kind == y) || (a.kind == y && b.kind == x)
	}
	switch {
	case pair(leaderTarget, followerTarget):
		return false // never one node at one moment
	case a.kind == memberTarget && b.kind == memberTarget,
		a.kind == clientTarget && b.kind == clientTarget:
		return a.arg == b.arg
	}
	return true
}

// seeds draws the random source of every step and trigger from the
// timeline's seed, in a fixed order.
func (tl Timeline) seeds() (steps, triggers []uint64) {
	root := tl.Seed.Rand(0)
	for range tl.Steps {
		steps = append(steps, root.Uint64())
	}
	for range tl.Triggers {
		triggers = append(triggers, root.Uint64())
	}
	return steps, triggers
}

// order returns the indices of the steps sorted by time, ties kept in
// the order given.
func (tl Timeline) order() []int {
	idx := make([]int, len(tl.Steps))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		return int(tl.Steps[i].At - tl.Steps[j].At)
	})
	return idx
}

// Plan resolves the targets of every step against the cluster as it is
// now, with the randomness the run would use. Triggers are not in it:
// when they fire depends on the workload.
func (tl Timeline) Plan(ctx context.Context, env *Env) ([]Planned, error) {
	if err := tl.Validate(env.c); err != nil {
		return nil, err
	}
	seeds, _ := tl.seeds()
	var out []Planned
	for _, i := range tl.order() {
		st := tl.Steps[i]
		targets, err := st.Fault.plan(ctx, env, stepRand(seeds[i]))
		out = append(out, Planned{At: st.At, For: st.For, Fault: st.Fault.String(), Targets: targets, Err: err})
	}
	return out, nil
}

// Run carries the timeline out against env. See Schedule.
func (tl Timeline) Run(ctx context.Context, env *Env) error { return Run(ctx, env, tl) }

// Arm validates the timeline and arms its triggers, so that operations
// recorded from the moment it returns fire them; the returned function
// runs the rest. See Schedule.
func (tl Timeline) Arm(ctx context.Context, env *Env) (func() error, error) {
	if err := tl.Validate(env.c); err != nil {
		return nil, err
	}
	r := newRunner(ctx, env)
	stepSeeds, triggerSeeds := tl.seeds()
	armed := r.arm(tl.Triggers, triggerSeeds)
	return func() (err error) {
		// Deferred, so that it runs on panic too.
		defer func() { err = errors.Join(err, r.close()) }()
		return tl.loop(ctx, r, stepSeeds, armed)
	}, nil
}

// loop fires the steps at their times and heals them when due, until the
// timeline is over or ctx ends.
func (tl Timeline) loop(ctx context.Context, r *runner, stepSeeds []uint64, armed []*armedTrigger) error {
	env := r.env
	allFired := func() bool {
		env.mu.Lock()
		defer env.mu.Unlock()
		for _, t := range armed {
			if !t.fired {
				return false
			}
		}
		return true
	}
	base := env.clock.Now()
	order := tl.order()
	next := 0
	for {
		r.healDue()
		now := env.clock.Now() - base
		for next < len(order) && tl.Steps[order[next]].At <= now {
			i := order[next]
			st := tl.Steps[i]
			r.fire(ctx, st.Fault, stepRand(stepSeeds[i]), fmt.Sprintf("step %d", i), st.For)
			next++
		}
		now = env.clock.Now() - base
		if tl.End > 0 && now >= tl.End {
			return nil
		}
		if tl.End == 0 && next == len(order) && r.idle() && allFired() {
			return nil
		}
		// Wake for the next step, the next heal, or the end.
		var until time.Duration
		ok := false
		consider := func(t time.Duration) {
			if !ok || t < until {
				until, ok = t, true
			}
		}
		if next < len(order) {
			consider(base + tl.Steps[order[next]].At)
		}
		if due, has := r.nextDue(); has {
			consider(due)
		}
		if tl.End > 0 {
			consider(base + tl.End)
		}
		if err := r.sleep(ctx, until, ok); err != nil {
			return fmt.Errorf("faults: timeline stopped at %v: %w", env.clock.Now()-base, err)
		}
	}
}
