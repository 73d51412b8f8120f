package scenarios

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/lease"
)

// A scenario is written for its workload's TTL: its holds, patience and
// fault times are so many TTLs long, whether or not it says so. The rule
// by which it is played at another TTL is one multiplication: at TTL t,
// every time the scenario sets is multiplied by t / its own TTL —
//
//   - the workload's duration, think, think jitter, hold, stagger and
//     patience (each as its default gives it when left zero; a zero
//     patience stays zero, since its default, 2 TTLs, scales itself);
//   - each timeline step's at and for, each trigger's for, the timeline's
//     end; the nemesis's min_for, max_for and quiet;
//   - each check's bound, and for a check that leaves its bound zero the
//     judge's default at the scenario's own TTL (checker.DefaultBound),
//     written out, so that the judges allow the same share of the run.
//
// What the cluster and the network are does not scale: the members'
// election timing, the links' latency, the clients' gRPC keepalive, an
// auth token's TTL, and what a fault carries inside it (a storm's period,
// a flap's down and up times, a delay's latency). So the run at 6 s is the
// run at 1 s with every client and every fault six times slower, on the
// same etcd.

// WithTTL returns s played at lease TTL ttl: its workload's TTL set to ttl
// and every time it sets scaled by ttl over its own TTL (the rule above).
// ttl must be what etcd grants, a whole number of seconds and at least
// 1 s. A scenario already at ttl is returned as it is. A fault schedule
// that is a program's own Go value (Faults.Schedule) has times WithTTL
// cannot reach, and is an error.
func (s Scenario) WithTTL(ttl time.Duration) (Scenario, error) {
	if err := lease.CheckTTL(ttl); err != nil {
		return s, fmt.Errorf("scenarios: %s: ttl: %w", s.Name, err)
	}
	d := s.withDefaults()
	from := d.Workload.TTL.D()
	if err := lease.CheckTTL(from); err != nil {
		return s, fmt.Errorf("scenarios: %s: its own workload.ttl: %w", s.Name, err)
	}
	if ttl == from {
		return s, nil
	}
	if s.Faults.Schedule != nil {
		return s, fmt.Errorf("scenarios: %s: its fault schedule %q is a Go value of a program's own, whose times cannot be scaled to a TTL of %v: scale the schedule where it is built",
			s.Name, s.Faults.ScheduleName, ttl)
	}
	sc := scale{num: int64(ttl / time.Second), den: int64(from / time.Second)}

	w, dw := &s.Workload, d.Workload
	w.TTL = Duration(ttl)
	w.Duration, w.Think, w.ThinkJitter = sc.dur(dw.Duration), sc.dur(dw.Think), sc.dur(dw.ThinkJitter)
	w.Hold, w.Stagger = sc.dur(dw.Hold), sc.dur(dw.Stagger)
	if w.Patience != 0 {
		w.Patience = sc.dur(w.Patience)
	}

	checks, bounded := slices.Clone(d.Checkers), false
	for i := range checks {
		c := &checks[i]
		b := c.Bound.D()
		if b == 0 {
			b, _ = checker.DefaultBound(c.Name, from)
		}
		if b != 0 {
			c.Bound, bounded = sc.dur(Duration(b)), true
		}
	}
	if bounded {
		s.Checkers = checks
	}

	if tl := s.Faults.Timeline; tl != nil {
		c := *tl
		c.Steps, c.Triggers = slices.Clone(tl.Steps), slices.Clone(tl.Triggers)
		for i := range c.Steps {
			c.Steps[i].At, c.Steps[i].For = sc.d(c.Steps[i].At), sc.d(c.Steps[i].For)
		}
		for i := range c.Triggers {
			c.Triggers[i].For = sc.d(c.Triggers[i].For)
		}
		c.End = sc.d(c.End)
		s.Faults.Timeline = &c
	}
	if n := s.Faults.Nemesis; n != nil {
		c := *n
		c.MinFor, c.MaxFor, c.Quiet = sc.d(n.MinFor), sc.d(n.MaxFor), sc.d(n.Quiet)
		s.Faults.Nemesis = &c
	}
	if sc.overflow {
		return s, fmt.Errorf("scenarios: %s: a time of the scenario is too long to scale from a TTL of %v to %v", s.Name, from, ttl)
	}
	return s, nil
}

// AtTTL returns each of ss played at lease TTL ttl (Scenario.WithTTL),
// for the lists a family's constructors return:
//
//	ss, err := scenarios.AtTTL(6*time.Second, scenarios.ElectionSafety(r))
//
// Its error names every scenario that cannot be scaled.
func AtTTL(ttl time.Duration, ss []Scenario) ([]Scenario, error) {
	out := make([]Scenario, len(ss))
	var errs []error
	for i, s := range ss {
		var err error
		if out[i], err = s.WithTTL(ttl); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// scale multiplies times by num/den, both whole seconds of TTL.
type scale struct {
	num, den int64
	overflow bool // a time too long to multiply by num
}

func (sc *scale) d(t time.Duration) time.Duration {
	if int64(t) > math.MaxInt64/sc.num {
		sc.overflow = true
		return t
	}
	return time.Duration(int64(t) * sc.num / sc.den)
}

func (sc *scale) dur(t Duration) Duration { return Duration(sc.d(t.D())) }
