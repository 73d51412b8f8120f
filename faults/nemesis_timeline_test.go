package faults_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
)

// viewSteps is the steps as stepViews (see json_test.go), for comparing.
func viewSteps(steps []faults.Step) []stepView {
	return viewTimeline(faults.Timeline{Steps: steps}).Steps
}

// The timeline of a nemesis of Steps faults holds what its Plan draws:
// the same faults, at the same times, for the same durations.
func TestNemesisTimelineIsItsPlan(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1", "c2")
		nem := faults.Nemesis{Seed: 7, Mix: mix(), MinFor: 200 * time.Millisecond, MaxFor: 900 * time.Millisecond, Quiet: 300 * time.Millisecond, Steps: 12}
		plan, err := nem.Plan(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		tl, err := nem.Timeline(time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		var want []stepView
		for _, p := range plan {
			want = append(want, stepView{p.At, p.For, p.Fault})
		}
		if diff := cmp.Diff(want, viewSteps(tl.Steps)); diff != "" {
			t.Errorf("timeline differs from the plan (-plan +timeline):\n%s", diff)
		}
		if tl.Seed != nem.Seed {
			t.Errorf("timeline seed %s, want the nemesis's %s", tl.Seed, nem.Seed)
		}
		if err := tl.Validate(c); err != nil {
			t.Errorf("the timeline does not validate: %v", err)
		}
	})
}

func TestNemesisTimelineFitsTheRun(t *testing.T) {
	s := time.Second
	ms := time.Millisecond
	nem := faults.Nemesis{Seed: 3, Mix: []faults.Choice{faults.Weighted(1, faults.Kill(faults.Leader))},
		MinFor: s, MaxFor: s, Quiet: 500 * ms}
	tests := []struct {
		name  string
		steps int
		d     time.Duration
		want  []stepView
	}{
		{"as many as start before the end", 0, 4 * s, []stepView{
			{0, s, "kill(leader)"}, {1500 * ms, s, "kill(leader)"}, {3 * s, s, "kill(leader)"},
		}},
		{"the last one cut at the end", 0, 3500 * ms, []stepView{
			{0, s, "kill(leader)"}, {1500 * ms, s, "kill(leader)"}, {3 * s, 500 * ms, "kill(leader)"},
		}},
		{"none at the end itself", 0, 3 * s, []stepView{
			{0, s, "kill(leader)"}, {1500 * ms, s, "kill(leader)"},
		}},
		{"Steps bounds them", 2, 10 * s, []stepView{
			{0, s, "kill(leader)"}, {1500 * ms, s, "kill(leader)"},
		}},
		{"and so does the end", 5, 2 * s, []stepView{
			{0, s, "kill(leader)"}, {1500 * ms, 500 * ms, "kill(leader)"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := nem
			n.Steps = tt.steps
			tl, err := n.Timeline(tt.d)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, viewSteps(tl.Steps)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}

// The same seed draws the same timeline; an instant fault has no
// duration.
func TestNemesisTimelineReplays(t *testing.T) {
	nem := faults.Nemesis{Seed: 11, Mix: mix(), MinFor: 100 * time.Millisecond, MaxFor: 2 * time.Second, Quiet: 100 * time.Millisecond}
	a, err := nem.Timeline(20 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := nem.Timeline(20 * time.Second)
	if diff := cmp.Diff(viewSteps(a.Steps), viewSteps(b.Steps)); diff != "" {
		t.Errorf("two timelines of one seed differ (-first +second):\n%s", diff)
	}
	for _, st := range a.Steps {
		if st.Fault.Instant() != (st.For == 0) {
			t.Errorf("step %v: instant %v but duration %v", st, st.Fault.Instant(), st.For)
		}
	}
	nem.Seed = 12
	c, _ := nem.Timeline(20 * time.Second)
	if cmp.Equal(viewSteps(a.Steps), viewSteps(c.Steps)) {
		t.Errorf("seeds 11 and 12 draw the same timeline: %v", viewSteps(a.Steps))
	}
}

func TestNemesisTimelineErrors(t *testing.T) {
	s := time.Second
	tests := []struct {
		name string
		n    faults.Nemesis
		d    time.Duration
		want []string
	}{
		{"no mix", faults.Nemesis{MinFor: s, MaxFor: s}, s, []string{"Mix is empty"}},
		{"bad durations", faults.Nemesis{Mix: mix(), MinFor: 2 * s, MaxFor: s}, s, []string{"MinFor 2s and MaxFor 1s"}},
		{"bad weight", faults.Nemesis{Mix: []faults.Choice{faults.Weighted(0, faults.Compact())}, MinFor: s, MaxFor: s}, s, []string{"weight 0"}},
		{"no duration", faults.Nemesis{Mix: mix(), MinFor: s, MaxFor: s}, 0, []string{"run duration 0s"}},
		{"time never moves", faults.Nemesis{Mix: []faults.Choice{faults.Weighted(1, faults.Compact())}, MinFor: s, MaxFor: s}, s, []string{"do not move time on"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.n.Timeline(tt.d)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// A run's events move each step to when the run fired it, counted from
// its first; steps the run did not fire are left out.
func TestNemesisTimelineOfRun(t *testing.T) {
	s := time.Second
	ms := time.Millisecond
	nem := faults.Nemesis{Seed: 3, Mix: []faults.Choice{faults.Weighted(1, faults.Kill(faults.Leader))},
		MinFor: s, MaxFor: s, Quiet: 500 * ms}
	events := []checker.FaultEvent{
		{Name: "kill(leader)", Start: 5 * ms, End: 1100 * ms, Healed: true, Detail: "nemesis step 0"},
		{Name: "compact", Start: 900 * ms, Detail: "step 0"}, // a timeline's
		{Name: "kill(leader)", Start: 1805 * ms, End: 2900 * ms, Healed: true, Detail: "nemesis step 1; m2"},
		// Failed before it took effect: the nemesis rested and went on.
		{Name: "kill(leader)", Start: 3305 * ms, End: 3305 * ms, Detail: "nemesis step 2", Err: "faults: kill(leader): no leader"},
		// Later than any nominal step of a 5s run: it fired all the same.
		{Name: "kill(leader)", Start: 3805 * ms, End: 4805 * ms, Healed: true, Detail: "nemesis step 3", Err: "heal: restart m1: slow"},
	}
	tl, err := nem.TimelineOfRun(4500*ms, events)
	if err != nil {
		t.Fatal(err)
	}
	want := []stepView{{0, s, "kill(leader)"}, {1800 * ms, s, "kill(leader)"}, {3800 * ms, 700 * ms, "kill(leader)"}}
	if diff := cmp.Diff(want, viewSteps(tl.Steps)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	nominal, _ := nem.Timeline(4 * s)
	none, err := nem.TimelineOfRun(4*s, events[1:2])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viewSteps(nominal.Steps), viewSteps(none.Steps)); diff != "" {
		t.Errorf("without the nemesis's events (-Timeline +TimelineOfRun):\n%s", diff)
	}
}

// The events of a real run are read back: every step it fired, none
// sooner than its nominal time.
func TestNemesisTimelineOfARealRun(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		_, env := start(t, 3, "c1", "c2")
		nem := faults.Nemesis{Seed: 5, Mix: []faults.Choice{
			faults.Weighted(1, faults.Kill(faults.Follower)),
			faults.Weighted(1, faults.Partition(faults.Minority)),
		}, MinFor: 200 * time.Millisecond, MaxFor: 400 * time.Millisecond, Quiet: 100 * time.Millisecond, Steps: 3}
		if err := nem.Run(ctx, env); err != nil {
			t.Fatal(err)
		}
		tl, err := nem.TimelineOfRun(time.Hour, env.Log().Events())
		if err != nil {
			t.Fatal(err)
		}
		nominal, _ := nem.Timeline(time.Hour)
		if len(tl.Steps) != len(nominal.Steps) {
			t.Fatalf("%d steps read back, want %d: %v", len(tl.Steps), len(nominal.Steps), viewSteps(tl.Steps))
		}
		for k, st := range tl.Steps {
			n := nominal.Steps[k]
			if st.Fault.String() != n.Fault.String() || st.For != n.For || st.At < n.At {
				t.Errorf("step %d: %v, want %v fired no sooner", k, st, n)
			}
		}
	})
}
