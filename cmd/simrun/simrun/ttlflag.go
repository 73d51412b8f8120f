package simrun

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/scenarios"
)

// ttlSpec is a lease TTL for every run, as -ttl and a campaign override's
// ttl give it: a whole number of seconds, at least 1 s, which each
// scenario is played at (scenarios.Scenario.WithTTL: its times and its
// judges' bounds scale with it); or "observed", the TTL each run's recipe
// grants (scenarios.Workload.ObservedTTL). The zero ttlSpec leaves each
// scenario at its own TTL.
type ttlSpec struct {
	ttl      time.Duration
	observed bool
}

// ttlObserved is the ttl that takes the recipe's.
const ttlObserved = "observed"

// parseTTL reads a ttlSpec, saying what would be valid when v is not.
func parseTTL(v string) (ttlSpec, error) {
	if v == ttlObserved {
		return ttlSpec{observed: true}, nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return ttlSpec{}, fmt.Errorf("%q is no duration: want a whole number of seconds, at least 1s, such as 6s, or %q for the TTL the recipe grants", v, ttlObserved)
	case d < time.Second:
		return ttlSpec{}, fmt.Errorf("%v: etcd grants whole seconds, at least 1s: want such as 6s, or %q for the TTL the recipe grants", d, ttlObserved)
	case d%time.Second != 0:
		lo := d.Truncate(time.Second)
		return ttlSpec{}, fmt.Errorf("%v is not a whole number of seconds, which is what etcd grants: use %v or %v, or %q for the TTL the recipe grants",
			d, lo, lo+time.Second, ttlObserved)
	}
	return ttlSpec{ttl: d}, nil
}

func (t ttlSpec) String() string {
	switch {
	case t.observed:
		return ttlObserved
	case t.ttl > 0:
		return t.ttl.String()
	}
	return ""
}

// apply plays s at t. Its error does not name s: the caller labels it.
func (t ttlSpec) apply(s scenarios.Scenario) (scenarios.Scenario, error) {
	switch {
	case t.observed:
		s.Workload.ObservedTTL = true
		if s.Faults.Schedule != nil {
			return s, fmt.Errorf("its fault schedule %q is a Go value of a program's own, whose times cannot be scaled to the recipe's TTL", s.Faults.ScheduleName)
		}
		return s, nil
	case t.ttl > 0:
		out, err := s.WithTTL(t.ttl)
		if err != nil {
			return s, errors.New(strings.TrimPrefix(err.Error(), "scenarios: "+s.Name+": "))
		}
		return out, nil
	}
	return s, nil
}
