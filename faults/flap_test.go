package faults_test

import (
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
)

// A flap cuts and restores its link n times, each cycle an event with its
// own span; healing the flap early heals the cycle in force.
func TestFlapCycles(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1")
		f := faults.Flap(faults.Isolate(faults.Client("c1")), 300*time.Millisecond, 700*time.Millisecond, 3)
		heal := inject(ctx, t, env, f)
		time.Sleep(5 * time.Second) // past 3 × 1s
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		var spans []time.Duration
		var starts []time.Duration
		for _, ev := range env.Log().Events() {
			if ev.Action == "isolate" {
				spans = append(spans, ev.End-ev.Start)
				starts = append(starts, ev.Start)
			}
		}
		if len(spans) != 3 {
			t.Fatalf("isolate events %v; want 3 cycles", spans)
		}
		for i, d := range spans {
			if d < 300*time.Millisecond || d > 400*time.Millisecond {
				t.Errorf("cycle %d was down %v; want 300ms (and the heal's own time)", i+1, d)
			}
			if i > 0 && starts[i]-starts[i-1] < time.Second {
				t.Errorf("cycle %d began %v after the one before; want at least down+up = 1s", i+1, starts[i]-starts[i-1])
			}
		}
		if ev := flapEvent(t, env, 0); !strings.Contains(ev.Detail, "3 of 3 cycles") {
			t.Errorf("the flap's event %+v: want it to say 3 of 3 cycles", ev)
		}

		// Healed in the middle of a cycle: the link comes back at once.
		heal = inject(ctx, t, env, faults.Flap(faults.Isolate(faults.Client("c1")), 2*time.Second, time.Second, 5))
		time.Sleep(500 * time.Millisecond)
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		if err := blackholed(c, 0); err != nil {
			t.Errorf("after healing a flap mid-cycle: %v", err)
		}
		if ev := flapEvent(t, env, 1); !strings.Contains(ev.Detail, "1 of 5 cycles") {
			t.Errorf("the flap healed early: event %+v; want 1 of 5 cycles", ev)
		}
	})
}

// Periods of zero, a count of zero and a fault that is over at once are
// refused with what would be valid; so are the malformed text forms.
func TestFlapRefusals(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c, _ := start(t, 3, "c1")
		for _, tt := range []struct {
			f    faults.Fault
			want string
		}{
			{faults.Flap(faults.Isolate(faults.Leader), 0, time.Second, 2), "down 0s and up 1s must both be positive"},
			{faults.Flap(faults.Isolate(faults.Leader), time.Second, time.Second, 0), "count ×0 must be at least 1"},
			{faults.Flap(faults.Compact(), time.Second, time.Second, 2), "flap needs a fault that lasts until healed"},
			{faults.Flap(faults.Flap(faults.Isolate(faults.Leader), time.Second, time.Second, 2), time.Second, time.Second, 2), "cannot flap another flap"},
		} {
			if err := tt.f.Available(c); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v: Available = %v; want it to say %q", tt.f, err, tt.want)
			}
		}
	})
	for _, tt := range []struct{ text, want string }{
		{"flap(isolate(leader))", "flap takes a fault and three more arguments"},
		{"flap(isolate(leader), down 1s, up 1s, five)", `want a count "×<n>"`},
		{"flap(isolate(leader), up 1s, down 1s, ×2)", `want "down <duration>"`},
		{"flap(isolat(leader), down 1s, up 1s, ×2)", "flap's fault: no action \"isolat\""},
	} {
		if _, err := faults.Parse(tt.text); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want it to say %q", tt.text, err, tt.want)
		}
	}
}

// flapEvent returns the i-th event of a flap itself.
func flapEvent(t *testing.T, env *faults.Env, i int) checker.FaultEvent {
	t.Helper()
	for _, ev := range env.Log().Events() {
		if ev.Action == "flap" {
			if i == 0 {
				return ev
			}
			i--
		}
	}
	t.Fatalf("no flap event %d", i)
	return checker.FaultEvent{}
}
