package scenarios_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/scenarios"
)

// One rule scales a scenario to another TTL: every time it sets, its
// judges' bounds among them, by the new TTL over its own; the contention
// schedule's tight 1.5 s liveness bound becomes 9 s at a TTL of 6 s, and
// a liveness check with no bound of its own takes six times the 3 s it
// had at 1 s.
func TestWithTTLScalesEveryTime(t *testing.T) {
	r := election.Recipes()[0]
	ss, err := scenarios.AtTTL(6*time.Second, scenarios.ElectionSafety(r))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]scenarios.Scenario{}
	for _, s := range ss {
		byName[strings.TrimPrefix(s.Name, "election/"+r.Name+"/")] = s
		if err := s.Validate(); err != nil {
			t.Errorf("%s at 6s: %v", s.Name, err)
		}
	}
	bound := func(s scenarios.Scenario) time.Duration {
		for _, c := range s.Checkers {
			if c.Name == checker.CheckerLiveness {
				return c.Bound.D()
			}
		}
		return -1
	}
	sec := func(f float64) scenarios.Duration { return scenarios.Duration(f * float64(time.Second)) }

	c := byName["contention"]
	w := c.Workload
	if diff := cmp.Diff([]scenarios.Duration{sec(6), sec(120), sec(0.6), sec(0.6), sec(0.24), sec(18)},
		[]scenarios.Duration{w.TTL, w.Duration, w.Hold, w.Think, w.ThinkJitter, w.Patience}); diff != "" {
		t.Errorf("contention's workload at 6s: ttl, duration, hold, think, jitter, patience (-want +got):\n%s", diff)
	}
	if got := bound(c); got != 9*time.Second {
		t.Errorf("contention's liveness bound at 6s = %v, want 9s (1.5s × 6)", got)
	}
	if lat := c.Cluster.Latency.D(); lat != 5*time.Millisecond {
		t.Errorf("the network's latency scaled to %v; it is the network's, not the schedule's", lat)
	}

	mid := byName["crash-mid-term"]
	if got := bound(mid); got != 18*time.Second {
		t.Errorf("crash-mid-term's liveness bound at 6s = %v, want 18s (the default 1s+2s, × 6)", got)
	}
	if st := mid.Faults.Timeline.Steps[0]; st.At != 9*time.Second || st.For != 6*time.Second {
		t.Errorf("crash-mid-term's crash at 6s: at %v for %v, want at 9s for 6s", st.At, st.For)
	}
	if tr := byName["crash-leader"].Faults.Timeline.Triggers[0]; tr.For != 6*time.Second {
		t.Errorf("crash-leader's trigger lasts %v at 6s, want 6s", tr.For)
	}

	// The lists the constructors return are left as they were.
	orig := scenarios.ElectionSafety(r)
	for _, s := range orig {
		if strings.HasSuffix(s.Name, "/crash-mid-term") && s.Faults.Timeline.Steps[0].At != 1500*time.Millisecond {
			t.Errorf("scaling changed the original's step: %v", s.Faults.Timeline.Steps[0])
		}
	}
	// Back to 1 s: the same times as the original, defaults written out.
	back, err := mid.WithTTL(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if st := back.Faults.Timeline.Steps[0]; st.At != 1500*time.Millisecond || back.Workload.Duration.D() != 10*time.Second || bound(back) != 3*time.Second {
		t.Errorf("6s and back to 1s: step %v, duration %v, bound %v; want at 1.5s, 10s, 3s", st, back.Workload.Duration, bound(back))
	}
}

// A TTL etcd would not grant, and a schedule whose times are a program's
// Go value, are errors that say what would do.
func TestWithTTLBadInput(t *testing.T) {
	s := scenarios.ElectionSafety(election.Recipes()[0])[0]
	for _, tt := range []struct {
		name string
		ttl  time.Duration
		want string
	}{
		{"zero", 0, "at least 1s"},
		{"negative", -time.Second, "at least 1s"},
		{"below a second", 500 * time.Millisecond, "at least 1s"},
		{"not whole seconds", 1500 * time.Millisecond, "use 1s or 2s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.WithTTL(tt.ttl)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("WithTTL(%v) = %v, want an error saying %q", tt.ttl, err, tt.want)
			}
		})
	}
	own := s
	own.Faults = scenarios.Faults{Schedule: &faults.Timeline{}, ScheduleName: "mine"}
	if _, err := own.WithTTL(2 * time.Second); err == nil || !strings.Contains(err.Error(), `"mine" is a Go value`) {
		t.Errorf("WithTTL of a program's own schedule = %v, want an error naming it", err)
	}
	if got, err := s.WithTTL(time.Second); err != nil || got.Workload.TTL != s.Workload.TTL || got.Faults.Timeline != s.Faults.Timeline {
		t.Errorf("WithTTL at the scenario's own TTL changed it, or failed: %v", err)
	}
}

// A constructor's scenarios, played at the 6 s TTL a library fixes in its
// code: the schedule and the judges' bounds six times as long.
func ExampleAtTTL() {
	r, _ := election.Lookup("rechecked")
	ss, err := scenarios.AtTTL(6*time.Second, scenarios.ElectionSafety(r))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range ss {
		if strings.HasSuffix(s.Name, "/crash-mid-term") {
			fmt.Println(s.Name, "ttl", s.Workload.TTL, "duration", s.Workload.Duration, "crash", s.Faults.Timeline.Steps[0])
		}
	}
	// Output: election/rechecked/crash-mid-term ttl 6s duration 1m0s crash at 9s for 6s: crash(election-leader E)
}
