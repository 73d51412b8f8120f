package faults

import (
	"errors"
	"fmt"
	"time"
)

// maxTimelineSteps bounds the timeline of a nemesis that draws until its
// run ends: one whose draws never move time on (instant faults with no
// Quiet) would draw without end.
const maxTimelineSteps = 10000

// Timeline returns, as an explicit schedule, the faults the nemesis draws
// for a run of duration d: the same draws its run and Plan make from its
// seed — which fault and for how long — one after another, each Quiet
// after the heal of the one before, the first at 0. Steps == 0 means as
// many as start before d, as a run that ends at d fires; with Steps > 0
// the steps that would start at d or later are left out too, since the
// run's end stops the nemesis. A fault still in force at d ends at d, when
// the run's end heals it.
//
// The times are the nemesis's nominal ones: its run counts each fault's
// duration from when the injection returned, so on a real cluster its
// faults drift later by the time each injection takes. The targets are
// resolved with the timeline's own random streams (from its Seed, set to
// the nemesis's), so a role with a choice in it — Follower, Minority —
// may pick other nodes than the nemesis's run did. The fault and its
// duration are the same.
func (n Nemesis) Timeline(d time.Duration) (Timeline, error) {
	if err := n.checkDraws(); err != nil {
		return Timeline{}, err
	}
	if d <= 0 {
		return Timeline{}, fmt.Errorf("faults: nemesis timeline: run duration %v must be positive", d)
	}
	tl := Timeline{Seed: n.Seed}
	root := n.root()
	var at time.Duration
	for k := 0; (n.Steps == 0 || k < n.Steps) && at < d; k++ {
		if k == maxTimelineSteps {
			return Timeline{}, fmt.Errorf("faults: nemesis timeline: more than %d faults start before %v: its draws do not move time on (instant faults and Quiet %v)", maxTimelineSteps, d, n.Quiet)
		}
		dr := n.draw(root)
		st := Step{At: at, For: min(dr.d, d-at), Fault: n.Mix[dr.choice].Fault}
		tl.Steps = append(tl.Steps, st)
		at += dr.d + n.Quiet
	}
	return tl, nil
}

// checkDraws reports what keeps the nemesis from drawing, whatever the
// cluster: the checks of validate that need no cluster's shape.
func (n Nemesis) checkDraws() error {
	var errs []error
	if len(n.Mix) == 0 {
		errs = append(errs, errors.New("faults: nemesis: Mix is empty"))
	}
	for i, ch := range n.Mix {
		if ch.Weight <= 0 {
			errs = append(errs, fmt.Errorf("faults: nemesis: choice %d (%v): weight %d must be positive", i, ch.Fault, ch.Weight))
		}
		if ch.Fault.apply == nil {
			errs = append(errs, fmt.Errorf("faults: nemesis: choice %d: the zero Fault is not valid", i))
		}
	}
	if n.MinFor <= 0 || n.MaxFor < n.MinFor {
		errs = append(errs, fmt.Errorf("faults: nemesis: durations MinFor %v and MaxFor %v must be positive, MinFor ≤ MaxFor", n.MinFor, n.MaxFor))
	}
	if n.Quiet < 0 {
		errs = append(errs, fmt.Errorf("faults: nemesis: Quiet %v is negative", n.Quiet))
	}
	if n.Steps < 0 {
		errs = append(errs, fmt.Errorf("faults: nemesis: Steps %d is negative", n.Steps))
	}
	return errors.Join(errs...)
}
