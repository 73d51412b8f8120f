package scenarios_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/scenarios"
)

// shrinkable is a lock pitfall under four faults, of which only the
// trigger matters to the fake judge below.
func shrinkable() scenarios.Scenario {
	s := time.Second
	return scenarios.Scenario{
		Name:     "lock/unfenced/shrink-me",
		Cluster:  scenarios.Cluster{Members: 3},
		Workload: scenarios.Workload{Family: scenarios.FamilyLock, Recipe: "unfenced", Clients: 3, Duration: scenarios.Duration(8 * s)},
		Faults: scenarios.Faults{Timeline: &faults.Timeline{
			Steps: []faults.Step{
				faults.At(0, s, faults.Kill(faults.Leader)),
				faults.At(1500*time.Millisecond, s, faults.Partition(faults.Minority)),
				faults.At(3*s, s, faults.Isolate(faults.Client("c3"))),
			},
			Triggers: []faults.Trigger{
				faults.On(faults.Match{Kind: checker.KindAcquire, Key: "L"}, 2500*time.Millisecond, faults.Pause(faults.LockHolder("L"))),
			},
		}},
		Checkers: []scenarios.Check{{Name: checker.CheckerMutualExclusion, ResourceOnly: true}},
		Expect:   checker.Expectation{Checker: checker.CheckerMutualExclusion, Violation: checker.ViolationStaleWrite},
		Seed:     1,
	}
}

func changes(cands []scenarios.Candidate) []string {
	var out []string
	for _, c := range cands {
		out = append(out, string(c.Reduction)+": "+c.Change)
	}
	return out
}

func TestReductions(t *testing.T) {
	pause := "pause(lock-holder L) on any client acquire L for 2.5s"
	noisy := func() scenarios.Scenario { return shrinkable() }
	tests := []struct {
		name  string
		s     func() scenarios.Scenario
		want  []string
		valid bool
	}{
		{"four faults", noisy, []string{
			"drop-faults: drop #1–#2 of 4",
			"drop-faults: drop #3–#4 of 4",
			"drop-faults: drop #1 at 0s for 1s: kill(leader)",
			"drop-faults: drop #2 at 1.5s for 1s: partition(minority)",
			"drop-faults: drop #3 at 3s for 1s: isolate(client c3)",
			"drop-faults: drop #4 " + pause,
			"shorten-fault: shorten #1 at 0s for 1s: kill(leader) to 500ms",
			"shorten-fault: shorten #2 at 1.5s for 1s: partition(minority) to 500ms",
			"shorten-fault: shorten #3 at 3s for 1s: isolate(client c3) to 500ms",
			"shorten-fault: shorten #4 " + pause + " to 1.25s",
			// No fewer clients: the isolation of c3 needs three.
			// The last heal is at 4s, and the TTL is 1s.
			"shorter-run: run 8s → 5s",
		}, true},
		{"one fault near its floors", func() scenarios.Scenario {
			s := shrinkable()
			s.Faults.Timeline.Steps = nil
			s.Faults.Timeline.Triggers[0].For = 150 * time.Millisecond
			s.Workload.Clients = 2
			s.Workload.Duration = scenarios.Duration(1150 * time.Millisecond) // 150ms + TTL
			return s
		}, []string{
			"drop-faults: drop #1 pause(lock-holder L) on any client acquire L for 150ms",
			"shorten-fault: shorten #1 pause(lock-holder L) on any client acquire L for 150ms to 100ms",
		}, true},
		{"at its floors", func() scenarios.Scenario {
			s := shrinkable()
			s.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{faults.At(0, 0, faults.Compact())}}
			s.Workload.Clients = 2
			s.Workload.Duration = scenarios.Duration(time.Second)
			return s
		}, []string{"drop-faults: drop #1 at 0s: compact"}, true},
		{"threads let one client show it", func() scenarios.Scenario {
			s := shrinkable()
			s.Faults = scenarios.Faults{}
			s.Workload.Threads = 3
			s.Workload.Clients = 4
			s.Workload.Duration = scenarios.Duration(4 * time.Second)
			return s
		}, []string{"fewer-clients: clients 4 → 2", "fewer-clients: clients 4 → 3", "shorter-run: run 4s → 2s"}, true},
		{"liveness waits for its bound", func() scenarios.Scenario {
			s := shrinkable()
			s.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{faults.At(time.Second, 100*time.Millisecond, faults.Kill(faults.Leader))}}
			s.Checkers = []scenarios.Check{{Name: checker.CheckerLiveness}}
			s.Expect = checker.Expectation{Checker: checker.CheckerLiveness}
			s.Workload.Clients = 2
			s.Workload.Duration = scenarios.Duration(20 * time.Second)
			return s
		}, []string{
			"drop-faults: drop #1 at 1s for 100ms: kill(leader)",
			// 1.1s + TTL 1s + bound (TTL + 2s) = 5.1s
			"shorter-run: run 20s → 10s",
		}, true},
		{"a nemesis is not shrunk", func() scenarios.Scenario {
			s := shrinkable()
			s.Faults = scenarios.Faults{Nemesis: &faults.Nemesis{Mix: []faults.Choice{faults.Weighted(1, faults.Kill(faults.Leader))},
				MinFor: time.Second, MaxFor: time.Second}}
			s.Workload.Clients = 2
			return s
		}, []string{"shorter-run: run 8s → 4s"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s()
			before, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got := scenarios.Reductions(s)
			if diff := cmp.Diff(tt.want, changes(got)); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
			for _, c := range got {
				if err := c.Scenario.Validate(); err != nil {
					t.Errorf("%s: %v", c.Change, err)
				}
			}
			after, _ := json.MarshalIndent(s, "", "  ")
			if diff := cmp.Diff(string(before), string(after)); diff != "" {
				t.Errorf("Reductions changed its argument (-before +after):\n%s", diff)
			}
		})
	}
}

func TestShrinkFloor(t *testing.T) {
	s := shrinkable()
	if got, want := scenarios.ShrinkFloor(s), 5*time.Second; got != want {
		t.Errorf("floor %v, want %v (last heal 4s + TTL 1s)", got, want)
	}
	s.Faults = scenarios.Faults{}
	if got, want := scenarios.ShrinkFloor(s), scenarios.MinShrinkDuration; got != want {
		t.Errorf("floor without faults %v, want %v", got, want)
	}
	s.Workload.Family, s.Workload.Recipe = scenarios.FamilyDiscovery, "keepalive"
	s.Workload.TTL = scenarios.Duration(3 * time.Second)
	s.Checkers = []scenarios.Check{{Name: checker.CheckerDiscoveryConvergence}}
	if got, want := scenarios.ShrinkFloor(s), 5*time.Second; got != want {
		t.Errorf("discovery floor %v, want %v (TTL 3s + bound 2s)", got, want)
	}
}

// fakeFails judges candidates by judge and adds each, with " kept" if it
// failed, to tried.
func fakeFails(tried *[]string) func(context.Context, scenarios.Candidate) (bool, error) {
	return func(_ context.Context, c scenarios.Candidate) (bool, error) {
		failed := judge(c.Scenario)
		*tried = append(*tried, c.Change+map[bool]string{true: " kept", false: ""}[failed])
		return failed, nil
	}
}

// judge fails a scenario as the unfenced recipe would: when its holder is
// paused for at least a TTL, two clients contend, and the run lasts 3s.
func judge(s scenarios.Scenario) bool {
	tl := s.Faults.Timeline
	if tl == nil || s.Workload.Clients < 2 || s.Workload.Duration.D() < 3*time.Second {
		return false
	}
	for _, tr := range tl.Triggers {
		if strings.HasPrefix(tr.Fault.String(), "pause(lock-holder") && tr.For >= time.Second {
			return true
		}
	}
	return false
}

func TestShrink(t *testing.T) {
	var tried []string
	got, err := scenarios.Shrink(context.Background(), shrinkable(), scenarios.ShrinkOptions{Fails: fakeFails(&tried)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"#1 pause(lock-holder L) on any client acquire L for 1.25s"}
	if diff := cmp.Diff(want, got.Faults.Lines()); diff != "" {
		t.Errorf("shrunk faults (-want +got):\n%s", diff)
	}
	if got.Workload.Clients != 2 || got.Workload.Duration.D() != 4*time.Second {
		t.Errorf("shrunk to %d clients for %v, want 2 for 4s", got.Workload.Clients, got.Workload.Duration)
	}
	wantTried := []string{
		"drop #1–#2 of 4 kept",
		"drop #1 at 3s for 1s: isolate(client c3) kept",
		"drop #1 pause(lock-holder L) on any client acquire L for 2.5s",
		"shorten #1 pause(lock-holder L) on any client acquire L for 2.5s to 1.25s kept",
		"shorten #1 pause(lock-holder L) on any client acquire L for 1.25s to 625ms",
		"clients 3 → 2 kept",
		"run 8s → 4s kept",
		"run 4s → 2.25s",
		// The second round: the same reductions of what the first kept.
		"drop #1 pause(lock-holder L) on any client acquire L for 1.25s",
		"shorten #1 pause(lock-holder L) on any client acquire L for 1.25s to 625ms",
	}
	if diff := cmp.Diff(wantTried, tried); diff != "" {
		t.Errorf("candidates tried (-want +got):\n%s", diff)
	}
}

// Nothing smaller fails: the scenario comes back as it was.
func TestShrinkKeepsAMinimalScenario(t *testing.T) {
	s := shrinkable()
	got, err := scenarios.Shrink(context.Background(), s, scenarios.ShrinkOptions{
		Fails: func(context.Context, scenarios.Candidate) (bool, error) { return false, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.Faults.Lines(), got.Faults.Lines()); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
}

// A candidate that cannot be judged is not kept, and the search goes on.
func TestShrinkSkipsWhatItCannotJudge(t *testing.T) {
	var calls []string
	fake := fakeFails(&calls)
	n := 0
	got, err := scenarios.Shrink(context.Background(), shrinkable(), scenarios.ShrinkOptions{
		Fails: func(ctx context.Context, c scenarios.Candidate) (bool, error) {
			if n++; n == 1 {
				return true, errors.New("the child process crashed")
			}
			return fake(ctx, c)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"#1 pause(lock-holder L) on any client acquire L for 1.25s"}; !slices.Equal(want, got.Faults.Lines()) {
		t.Errorf("shrunk to %q, want %q", got.Faults.Lines(), want)
	}
}

// When ctx ends the search stops with the smallest scenario found so far.
func TestShrinkStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls []string
	fake := fakeFails(&calls)
	got, err := scenarios.Shrink(ctx, shrinkable(), scenarios.ShrinkOptions{
		Fails: func(ctx context.Context, c scenarios.Candidate) (bool, error) {
			failed, err := fake(ctx, c)
			if len(calls) == 2 {
				cancel()
			}
			return failed, err
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	want := []string{"#1 pause(lock-holder L) on any client acquire L for 2.5s"}
	if diff := cmp.Diff(want, got.Faults.Lines()); diff != "" {
		t.Errorf("faults so far (-want +got):\n%s", diff)
	}
	if len(calls) != 2 {
		t.Errorf("%d candidates run after the cancel, want none", len(calls)-2)
	}
}

func TestShrinkRefusesANemesis(t *testing.T) {
	s := shrinkable()
	s.Faults.Nemesis = &faults.Nemesis{Mix: []faults.Choice{faults.Weighted(1, faults.Kill(faults.Leader))}, MinFor: time.Second, MaxFor: time.Second}
	_, err := scenarios.Shrink(context.Background(), s, scenarios.ShrinkOptions{
		Fails: func(context.Context, scenarios.Candidate) (bool, error) { return true, nil },
	})
	if err == nil || !strings.Contains(err.Error(), "NemesisAsTimeline") {
		t.Errorf("error %v, want one that says to turn the nemesis into a timeline", err)
	}
}

func TestNemesisAsTimeline(t *testing.T) {
	s := shrinkable()
	nem := faults.Nemesis{Mix: []faults.Choice{
		faults.Weighted(2, faults.Kill(faults.Leader)),
		faults.Weighted(1, faults.Partition(faults.Minority)),
		faults.Weighted(1, faults.Compact()),
	}, MinFor: 300 * time.Millisecond, MaxFor: 1200 * time.Millisecond, Quiet: 400 * time.Millisecond}
	s.Faults.Nemesis = &nem
	s.Faults.Timeline.Steps = s.Faults.Timeline.Steps[2:] // isolate(client c3) at 3s, away from the nemesis's targets
	got, err := s.NemesisAsTimeline(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Faults.Nemesis != nil {
		t.Fatal("the nemesis is still there")
	}
	// A run seeds its nemesis with its own seed plus one.
	nem.Seed = s.Seed + 1
	drawn, err := nem.Timeline(8 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := []faults.Step{faults.At(3*time.Second, time.Second, faults.Isolate(faults.Client("c3")))}
	for _, st := range drawn.Steps {
		// Rounded to the millisecond, start and end.
		at, end := st.At.Round(time.Millisecond), (st.At + st.For).Round(time.Millisecond)
		want = append(want, faults.At(at, end-at, st.Fault))
	}
	slices.SortStableFunc(want, func(a, b faults.Step) int { return int(a.At - b.At) })
	lines := func(steps []faults.Step) []string {
		var out []string
		for _, st := range steps {
			out = append(out, st.String())
		}
		return out
	}
	if diff := cmp.Diff(lines(want), lines(got.Faults.Timeline.Steps)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if n := len(got.Faults.Timeline.Triggers); n != 1 {
		t.Errorf("%d triggers, want the one the scenario had", n)
	}
	if len(drawn.Steps) < 4 {
		t.Errorf("only %d faults drawn for 8s: %v", len(drawn.Steps), lines(drawn.Steps))
	}

	plain := shrinkable()
	same, err := plain.NemesisAsTimeline(nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain.Faults.Lines(), same.Faults.Lines()); diff != "" {
		t.Errorf("a scenario without a nemesis changed (-before +after):\n%s", diff)
	}
}

// A run's events put each of the nemesis's steps where the run fired it.
func TestNemesisAsTimelineOfARun(t *testing.T) {
	s := shrinkable()
	s.Faults = scenarios.Faults{Nemesis: &faults.Nemesis{Mix: []faults.Choice{faults.Weighted(1, faults.Kill(faults.Leader))},
		MinFor: time.Second, MaxFor: time.Second, Quiet: 500 * time.Millisecond}}
	events := []checker.FaultEvent{
		{Name: "kill(leader)", Start: 2 * time.Millisecond, Detail: "nemesis step 0"},
		{Name: "kill(leader)", Start: 1802 * time.Millisecond, Detail: "nemesis step 1"},
	}
	got, err := s.NemesisAsTimeline(events)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"#1 at 0s for 1s: kill(leader)", "#2 at 1.8s for 1s: kill(leader)"}
	if diff := cmp.Diff(want, got.Faults.Lines()); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
}
