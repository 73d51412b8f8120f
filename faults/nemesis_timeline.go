package faults

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/checker"
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
// The times are the nemesis's nominal ones: its run counts each rest from
// when the heal returned, so on a real cluster its faults drift later by
// the time each heal takes, a restart most (TimelineOfRun places them
// where a run fired them). The targets are
// resolved with the timeline's own random streams (from its Seed, set to
// the nemesis's), so a role with a choice in it — Follower, Minority —
// may pick other nodes than the nemesis's run did. The fault and its
// duration are the same.
func (n Nemesis) Timeline(d time.Duration) (Timeline, error) {
	drawn, err := n.drawn(d)
	if err != nil {
		return Timeline{}, err
	}
	tl := Timeline{Seed: n.Seed}
	for _, st := range drawn {
		st.For = min(st.For, d-st.At)
		tl.Steps = append(tl.Steps, st)
	}
	return tl, nil
}

// TimelineOfRun returns the timeline of a run of the nemesis that
// recorded events (its Env's log, or a result's faults): the steps that
// run fired — the nemesis's draws — each at the time the run fired it,
// counted from its first step, rather than at its nominal time. A heal
// takes time, a restart most, and the nemesis counts each rest from when
// it is done, so a run's steps drift later than Timeline's; a timeline
// that fires them when the run did repeats it more closely. A step the run did not fire is left out, and so is one whose
// injection failed before it took effect (a role nobody held): the run
// went on without it, and did not wait its duration. A fault still in
// force at d ends at d. With no event of the nemesis in events it returns
// Timeline(d).
func (n Nemesis) TimelineOfRun(d time.Duration, events []checker.FaultEvent) (Timeline, error) {
	fired := map[int]checker.FaultEvent{}
	last := -1
	for _, ev := range events {
		if k, ok := nemesisStep(ev.Detail); ok {
			if _, dup := fired[k]; !dup {
				fired[k] = ev
				last = max(last, k)
			}
		}
	}
	if len(fired) == 0 {
		return n.Timeline(d)
	}
	if n.Steps > 0 && last >= n.Steps {
		return Timeline{}, fmt.Errorf("faults: nemesis timeline: the run's events name step %d of a nemesis of %d steps", last, n.Steps)
	}
	drawn, err := n.drawnN(last + 1)
	if err != nil {
		return Timeline{}, err
	}
	base := fired[0].Start
	tl := Timeline{Seed: n.Seed}
	for k, st := range drawn {
		ev, ok := fired[k]
		if !ok || ev.Start-base >= d || ev.Err != "" && !ev.Healed && ev.End == ev.Start {
			continue
		}
		st.At = max(0, ev.Start-base)
		st.For = min(st.For, d-st.At)
		tl.Steps = append(tl.Steps, st)
	}
	return tl, nil
}

// nemesisStep reads the step number from the detail a nemesis's run gives
// the event of each step ("nemesis step 3", and what the fault adds after
// a semicolon; see Nemesis.run).
func nemesisStep(detail string) (int, bool) {
	rest, ok := strings.CutPrefix(detail, "nemesis step ")
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, ";")
	k, err := strconv.Atoi(num)
	return k, err == nil && k >= 0
}

// drawn returns the steps the nemesis draws, each at its nominal time,
// that start before d; their durations are as drawn, not cut at d.
func (n Nemesis) drawn(d time.Duration) ([]Step, error) {
	if d <= 0 {
		return nil, fmt.Errorf("faults: nemesis timeline: run duration %v must be positive", d)
	}
	return n.draws(func(k int, at time.Duration) bool { return at < d })
}

// drawnN returns the first count steps the nemesis draws, each at its
// nominal time.
func (n Nemesis) drawnN(count int) ([]Step, error) {
	return n.draws(func(k int, _ time.Duration) bool { return k < count })
}

// draws returns the nemesis's draws, each at its nominal time, while more
// says to go on (and Steps allows).
func (n Nemesis) draws(more func(k int, at time.Duration) bool) ([]Step, error) {
	if err := n.checkDraws(); err != nil {
		return nil, err
	}
	root := n.root()
	var out []Step
	var at time.Duration
	for k := 0; (n.Steps == 0 || k < n.Steps) && more(k, at); k++ {
		if k == maxTimelineSteps {
			return nil, fmt.Errorf("faults: nemesis timeline: more than %d faults: its draws do not move time on (instant faults and Quiet %v)", maxTimelineSteps, n.Quiet)
		}
		dr := n.draw(root)
		out = append(out, Step{At: at, For: dr.d, Fault: n.Mix[dr.choice].Fault})
		at += dr.d + n.Quiet
	}
	return out, nil
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
