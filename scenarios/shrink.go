package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// Shrinking finds, from a scenario whose runs fail, a smaller one whose
// runs still fail the same way: fewer faults, shorter ones, fewer
// clients, a shorter run. Reductions lists the scenarios one step
// smaller, as plain data; Shrink tries them greedily, asking a function
// of the caller's whether each still fails. Neither starts a cluster.

// The floors of a shrink.
const (
	// MinShrinkFor is the shortest a shrink makes a fault.
	MinShrinkFor = 100 * time.Millisecond
	// MinShrinkDuration is the shortest a shrink makes a run.
	MinShrinkDuration = time.Second
)

// Reduction is a kind of step a shrink takes.
type Reduction string

// The reductions, in the order a shrink tries them.
const (
	DropFaults   Reduction = "drop-faults"   // without half the faults, or one
	ShortenFault Reduction = "shorten-fault" // one fault for half as long
	FewerClients Reduction = "fewer-clients" // half the clients, or one fewer
	ShorterRun   Reduction = "shorter-run"   // the workload for half as long
)

var reductionOrder = []struct {
	r          Reduction
	candidates func(Scenario) []Candidate
}{
	{DropFaults, dropFaults},
	{ShortenFault, shortenFaults},
	{FewerClients, fewerClients},
	{ShorterRun, shorterRun},
}

// Candidate is a scenario one step smaller than the one it came from.
type Candidate struct {
	Reduction Reduction
	// Change says in words what was made smaller: "drop #2
	// at 1s for 1s: kill(leader)", "clients 3 → 2".
	Change   string
	Scenario Scenario
}

// Reductions returns the scenarios one step smaller than s, in the order
// a shrink tries them: without the first half of its timeline's faults,
// then without the second half, then without each fault; each fault that
// lasts for half as long (not below MinShrinkFor); half the clients, then
// one fewer (not below two, or one where a single client can show a
// violation: a lock client of several threads, a discovery backend, a
// register client); the workload for half as long, but no shorter than
// MinShrinkDuration or than the last fault's heal plus what the checkers
// need after it (see ShrinkFloor). A step that would make a scenario that
// does not validate — a fault aimed at a client the run no longer has —
// is left out. A nemesis's faults are not steps of their own: turn it
// into a timeline first (NemesisAsTimeline).
func Reductions(s Scenario) []Candidate {
	var out []Candidate
	for _, r := range reductionOrder {
		out = append(out, r.candidates(s)...)
	}
	return out
}

// ShrinkOptions are what Shrink needs from its caller.
type ShrinkOptions struct {
	// Fails runs the candidate's scenario, as many times as the caller
	// wants to be sure, and reports whether it failed the way the
	// original did. It must be set. An error means it could not tell (a
	// harness failure, ctx ended): the candidate is not kept.
	Fails func(ctx context.Context, c Candidate) (bool, error)
}

// Shrink looks for the smallest scenario that still fails, starting from
// s, which the caller has seen fail. It tries the candidates of each
// reduction in turn (see Reductions) and keeps the first that fails,
// then tries that reduction's candidates of the new scenario, until none
// fails; then the next reduction. After a round through all four that
// kept anything it goes round again, since a shorter fault may let
// another be dropped, and stops after a round that kept nothing. A
// candidate that did not fail, or could not be judged, is not tried
// again.
//
// It returns the smallest scenario found: s itself when nothing smaller
// failed. When ctx ends it returns the smallest found so far and ctx's
// error. A scenario with a nemesis is an error: turn it into a timeline
// first (NemesisAsTimeline).
func Shrink(ctx context.Context, s Scenario, opts ShrinkOptions) (Scenario, error) {
	if opts.Fails == nil {
		return s, errors.New("scenarios: shrink: ShrinkOptions.Fails is nil")
	}
	if s.Faults.Nemesis != nil {
		return s, fmt.Errorf("scenarios: shrink: %s has a nemesis; turn it into a timeline first (NemesisAsTimeline)", s.Name)
	}
	best := s
	rejected := map[string]bool{}
	for {
		kept := false
		for _, r := range reductionOrder {
			for {
				next, ok, err := firstFailing(ctx, r.candidates(best), opts, rejected)
				if ok {
					best, kept = next, true
				}
				if err != nil {
					return best, err
				}
				if !ok {
					break
				}
			}
		}
		if !kept {
			return best, nil
		}
	}
}

// firstFailing runs cands in order until one fails, and returns it. A
// candidate that does not fail is added to rejected; one already there is
// skipped. The error is ctx's, once it has ended.
func firstFailing(ctx context.Context, cands []Candidate, opts ShrinkOptions, rejected map[string]bool) (Scenario, bool, error) {
	for _, c := range cands {
		key, keyed := c.key()
		if keyed && rejected[key] {
			continue
		}
		failed, err := opts.Fails(ctx, c)
		ok := failed && err == nil
		if !ok && keyed {
			rejected[key] = true
		}
		if cerr := ctx.Err(); cerr != nil {
			return c.Scenario, ok, cerr
		}
		if ok {
			return c.Scenario, true, nil
		}
	}
	return Scenario{}, false, nil
}

// key identifies the candidate's scenario; a scenario with a fault that
// has no text form has none.
func (c Candidate) key() (string, bool) {
	b, err := json.Marshal(c.Scenario)
	return string(b), err == nil
}

// NemesisAsTimeline returns s with its nemesis replaced by the faults it
// draws for s's seed and workload duration, as timeline steps rounded to
// the millisecond, sorted by time with the steps of s's own timeline if it
// has one. events, if not nil, are the fault events of a run of s (its
// result's Faults): each step then starts when that run's nemesis fired
// it, and a step it did not fire is left out (see
// faults.Nemesis.TimelineOfRun); otherwise at its nominal time (see
// faults.Nemesis.Timeline). A scenario without a nemesis is returned as it
// is. The steps' targets are resolved from the run's seed the way a
// timeline's are, not the way the nemesis resolved them, and an injection
// takes its own time: a run of the result need not fail as the nemesis's
// did, so run it to know.
func (s Scenario) NemesisAsTimeline(events []checker.FaultEvent) (Scenario, error) {
	if s.Faults.Nemesis == nil {
		return s, nil
	}
	var nem faults.Nemesis
	for _, sch := range s.schedules() { // with the seed a run gives it
		if n, ok := sch.(faults.Nemesis); ok {
			nem = n
		}
	}
	drawn, err := nem.TimelineOfRun(s.withDefaults().Workload.Duration.D(), events)
	if err != nil {
		return Scenario{}, fmt.Errorf("scenarios: %s: %w", s.Name, err)
	}
	tl := faults.Timeline{Seed: s.Seed}
	if own := s.Faults.Timeline; own != nil {
		tl = cloneTimeline(own)
	}
	for _, st := range drawn.Steps {
		tl.Steps = append(tl.Steps, roundStep(st))
	}
	slices.SortStableFunc(tl.Steps, func(a, b faults.Step) int { return int(a.At - b.At) })
	out := s
	out.Faults.Timeline, out.Faults.Nemesis = &tl, nil
	if err := out.Validate(); err != nil {
		return Scenario{}, fmt.Errorf("scenarios: %s: its nemesis's faults as a timeline: %w", s.Name, err)
	}
	return out, nil
}

// roundStep rounds a drawn step's start and end to the millisecond, for a
// timeline people read: the nominal times are no closer than that to
// what a run does anyway. Rounding both ends keeps steps that did not
// overlap apart; a fault that lasts keeps a duration.
func roundStep(st faults.Step) faults.Step {
	at := st.At.Round(time.Millisecond)
	end := (st.At + st.For).Round(time.Millisecond)
	st.At, st.For = at, max(end-at, time.Millisecond)
	if st.Fault.Instant() {
		st.For = 0
	}
	return st
}

// ShrinkFloor is the shortest run a shrink gives s: past the last heal
// of its timeline's faults (a trigger's counted as if it fired at the
// start) by what its checkers need after it — a TTL, for a lease the
// fault outlived to expire and its successor to act, and for liveness and
// discovery convergence their bound past that — and no shorter than
// MinShrinkDuration.
func ShrinkFloor(s Scenario) time.Duration {
	s = s.withDefaults()
	var last time.Duration
	if tl := s.Faults.Timeline; tl != nil {
		for _, st := range tl.Steps {
			last = max(last, st.At+st.For)
		}
		for _, tr := range tl.Triggers {
			last = max(last, tr.For)
		}
	}
	ttl := s.Workload.TTL.D()
	need := ttl
	for _, c := range s.Checkers {
		b := c.Bound.D()
		switch c.Name {
		case checker.CheckerLiveness, checker.CheckerBarrierSafety:
			if b == 0 {
				b = ttl + 2*time.Second // checker.LivenessOptions's and BarrierOptions's default
			}
			need = max(need, ttl+b)
		case checker.CheckerDiscoveryConvergence:
			if b == 0 {
				b = 2 * time.Second // checker.DiscoveryOptions's default
			}
			need = max(need, ttl+b)
		}
	}
	return max(MinShrinkDuration, last+need)
}

// Lines lists the faults one a line, numbered as a shrink numbers them:
// the timeline's steps, then its triggers; a nemesis is one line after
// them, and a program's own schedule, which a shrink leaves as it is,
// one line at the end.
func (f Faults) Lines() []string {
	var out []string
	if f.Timeline != nil {
		for i, it := range listFaults(f.Timeline) {
			out = append(out, fmt.Sprintf("#%d %s", i+1, it.text))
		}
	}
	if n := f.Nemesis; n != nil {
		out = append(out, describeNemesis(*n))
	}
	if f.Schedule != nil || f.ScheduleName != "" {
		out = append(out, fmt.Sprintf("schedule %s: the program's own", f.ScheduleName))
	}
	return out
}

func describeNemesis(n faults.Nemesis) string {
	mix := ""
	for i, ch := range n.Mix {
		if i > 0 {
			mix += ", "
		}
		mix += fmt.Sprintf("%v×%d", ch.Fault, ch.Weight)
	}
	steps := "until the run ends"
	if n.Steps > 0 {
		steps = fmt.Sprintf("%d of them", n.Steps)
	}
	return fmt.Sprintf("nemesis: drawn from %s, each for %v to %v, %v apart, %s", mix, n.MinFor, n.MaxFor, n.Quiet, steps)
}

// faultItem is one fault of a timeline: its step or its trigger.
type faultItem struct {
	trigger bool
	i       int // in Steps or Triggers
	d       time.Duration
	instant bool
	text    string
}

// listFaults lists tl's steps, then its triggers.
func listFaults(tl *faults.Timeline) []faultItem {
	var out []faultItem
	for i, st := range tl.Steps {
		out = append(out, faultItem{i: i, d: st.For, instant: st.Fault.Instant(), text: st.String()})
	}
	for i, tr := range tl.Triggers {
		out = append(out, faultItem{trigger: true, i: i, d: tr.For, instant: tr.Fault.Instant(), text: tr.String()})
	}
	return out
}

func cloneTimeline(tl *faults.Timeline) faults.Timeline {
	c := *tl
	c.Steps = slices.Clone(tl.Steps)
	c.Triggers = slices.Clone(tl.Triggers)
	return c
}

// candidate is s as changed by change, if it validates.
func candidate(r Reduction, s Scenario, change string, out *[]Candidate) {
	if s.Validate() != nil {
		return
	}
	*out = append(*out, Candidate{Reduction: r, Change: change, Scenario: s})
}

// shrinkable returns s's timeline, if shrinking may change its faults.
func shrinkable(s Scenario) (*faults.Timeline, bool) {
	tl := s.Faults.Timeline
	return tl, tl != nil && s.Faults.Nemesis == nil
}

func dropFaults(s Scenario) []Candidate {
	tl, ok := shrinkable(s)
	if !ok {
		return nil
	}
	items := listFaults(tl)
	n := len(items)
	var out []Candidate
	seen := map[[2]int]bool{}
	drop := func(lo, hi int) {
		if lo >= hi || seen[[2]int{lo, hi}] {
			return
		}
		seen[[2]int{lo, hi}] = true
		c := cloneTimeline(tl)
		c.Steps, c.Triggers = nil, nil
		for k, it := range items {
			switch {
			case k >= lo && k < hi:
			case it.trigger:
				c.Triggers = append(c.Triggers, tl.Triggers[it.i])
			default:
				c.Steps = append(c.Steps, tl.Steps[it.i])
			}
		}
		t := s
		t.Faults.Timeline = &c
		if len(c.Steps) == 0 && len(c.Triggers) == 0 {
			t.Faults.Timeline = nil
		}
		change := fmt.Sprintf("drop #%d–#%d of %d", lo+1, hi, n)
		if hi == lo+1 {
			change = fmt.Sprintf("drop #%d %s", lo+1, items[lo].text)
		}
		candidate(DropFaults, t, change, &out)
	}
	if n > 2 {
		drop(0, n/2)
		drop(n/2, n)
	}
	for k := range n {
		drop(k, k+1)
	}
	return out
}

func shortenFaults(s Scenario) []Candidate {
	tl, ok := shrinkable(s)
	if !ok {
		return nil
	}
	var out []Candidate
	for k, it := range listFaults(tl) {
		if it.instant {
			continue
		}
		d := max(MinShrinkFor, (it.d / 2).Round(time.Millisecond))
		if d >= it.d {
			continue
		}
		c := cloneTimeline(tl)
		if it.trigger {
			c.Triggers[it.i].For = d
		} else {
			c.Steps[it.i].For = d
		}
		t := s
		t.Faults.Timeline = &c
		candidate(ShortenFault, t, fmt.Sprintf("shorten #%d %s to %v", k+1, it.text, d), &out)
	}
	return out
}

// minClients is the fewest clients a run of s shrinks to: one where a
// single client can show a violation, two otherwise (two holders, two
// leaders).
func minClients(s Scenario) int {
	w := s.withDefaults().Workload
	if f := familyOf(w.Family); f != nil && f.minClients != nil {
		return f.minClients(w)
	}
	return 2
}

func fewerClients(s Scenario) []Candidate {
	n := s.withDefaults().Workload.Clients
	least := minClients(s)
	var out []Candidate
	for _, k := range slices.Compact([]int{n / 2, n - 1}) {
		if k < least {
			continue
		}
		t := s
		t.Workload.Clients = k
		candidate(FewerClients, t, fmt.Sprintf("clients %d → %d", n, k), &out)
	}
	return out
}

func shorterRun(s Scenario) []Candidate {
	d := s.withDefaults().Workload.Duration.D()
	half := max(ShrinkFloor(s), (d / 2).Round(time.Millisecond))
	if half >= d {
		return nil
	}
	t := s
	t.Workload.Duration = Duration(half)
	var out []Candidate
	candidate(ShorterRun, t, fmt.Sprintf("run %v → %v", d, half), &out)
	return out
}
