package scenarios_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// leaderFlaps is a fault schedule as a user writes one, with nothing but
// the faults package's public API: it cuts the leader off from the rest n
// times, for d each, the cuts about every apart — each gap drawn from the
// run's seed, so that the seed replays it — and waits for the cluster to
// be healthy before it returns.
type leaderFlaps struct {
	n        int
	every, d time.Duration
}

// flapStream is leaderFlaps's own stream of the run's seed.
const flapStream = 0x666c617073

func (f leaderFlaps) Validate(*cluster.Cluster) error {
	if f.n < 1 || f.d <= 0 || f.every <= f.d {
		return fmt.Errorf("leader flaps: want at least one flap, a positive duration and a period longer than it (got %d × %v every %v)", f.n, f.d, f.every)
	}
	return nil
}

// starts are when the flaps begin, from the start of the schedule.
func (f leaderFlaps) starts(env *faults.Env) []time.Duration {
	rng := env.Seed().Rand(flapStream)
	var out []time.Duration
	at := time.Duration(0)
	for range f.n {
		at += f.every - f.d/2 + time.Duration(rng.Int64N(int64(f.d)))
		out = append(out, at)
		at += f.d
	}
	return out
}

func (f leaderFlaps) Plan(_ context.Context, env *faults.Env) ([]faults.Planned, error) {
	var out []faults.Planned
	for _, at := range f.starts(env) {
		out = append(out, faults.Planned{At: at, For: f.d, Fault: faults.Isolate(faults.Leader).String()})
	}
	return out, nil
}

func (f leaderFlaps) Arm(ctx context.Context, env *faults.Env) (func() error, error) {
	if err := f.Validate(env.Cluster()); err != nil {
		return nil, err
	}
	starts := f.starts(env)
	return func() error {
		base := env.Clock().Now()
		for _, at := range starts {
			if err := sleepUntil(ctx, env, base+at); err != nil {
				return err
			}
			heal, err := env.Inject(ctx, faults.Isolate(faults.Leader))
			if err != nil {
				return err
			}
			werr := sleepUntil(ctx, env, base+at+f.d)
			if err := heal(context.WithoutCancel(ctx)); err != nil {
				return err
			}
			if werr != nil {
				return werr
			}
		}
		return env.Cluster().WaitHealthy(ctx)
	}, nil
}

func sleepUntil(ctx context.Context, env *faults.Env, t time.Duration) error {
	timer := time.NewTimer(t - env.Clock().Now())
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// A scenario runs a user's own schedule: its faults land in the history,
// healed, and the lock stays safe. The scenario's JSON names the schedule,
// and read back without the program that has it, it says how to run it.
func TestOwnSchedule(t *testing.T) {
	s, err := scenarios.Lookup("lock/mutex/leader-kill")
	if err != nil {
		t.Fatal(err)
	}
	s.Name, s.Description = "lock/mutex/leader-flaps", "mutex while the leader is cut off twice"
	// Long enough after the last heal (about 6 s) for a lease cut off with
	// the leader, and renewed by each new leader, to run out, and for
	// liveness to see a lock taken after it.
	s.Workload.Duration = scenarios.Duration(15 * time.Second)
	s.Faults = scenarios.Faults{Schedule: leaderFlaps{n: 2, every: 2 * time.Second, d: time.Second}, ScheduleName: "leader-flaps"}
	res := scenarios.Test(t, s)
	if res == nil || t.Failed() {
		return
	}
	var flaps []checker.FaultEvent
	for _, ev := range res.History().Faults {
		if ev.Action == "isolate" {
			flaps = append(flaps, ev)
		}
	}
	if len(flaps) != 2 {
		t.Fatalf("%d isolations in the history, want the schedule's 2; faults: %v", len(flaps), res.History().Faults)
	}
	for _, ev := range flaps {
		if !ev.Healed || ev.Err != "" || len(ev.Targets) != 1 || !strings.HasPrefix(ev.Targets[0], "m") {
			t.Errorf("flap %+v: want one member cut off and healed, without error", ev)
		}
		if d := ev.End - ev.Start; d < time.Second {
			t.Errorf("flap %+v lasted %v, want the schedule's 1s", ev, d)
		}
	}

	path := filepath.Join(t.TempDir(), results.ScenarioFile)
	if err := results.WriteScenario(path, res.Scenario); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"schedule": "leader-flaps"`)) {
		t.Errorf("the scenario's JSON does not name its schedule:\n%s", b)
	}
	back, err := results.ReadScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Faults.ScheduleName != "leader-flaps" || back.Faults.Schedule != nil {
		t.Errorf("read back: schedule %q, value %v; want the name alone", back.Faults.ScheduleName, back.Faults.Schedule)
	}
	err = back.Validate()
	for _, want := range []string{`faults.schedule "leader-flaps"`, "a Go value that JSON cannot carry", "simrun.Main"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate of the scenario read back: %v; want it to say %q", err, want)
		}
	}
}

// A program's own schedule is refused without its name, under a bad name,
// and when it is a timeline or nemesis, which have fields of their own.
func TestOwnScheduleValidation(t *testing.T) {
	flaps := leaderFlaps{n: 1, every: 2 * time.Second, d: time.Second}
	tests := []struct {
		name   string
		faults scenarios.Faults
		want   string
	}{
		{"no name", scenarios.Faults{Schedule: flaps}, "faults.ScheduleName is empty"},
		{"bad name", scenarios.Faults{Schedule: flaps, ScheduleName: "Leader Flaps"}, `faults.schedule "Leader Flaps": use lower-case letters`},
		{"a timeline", scenarios.Faults{Schedule: faults.Timeline{}, ScheduleName: "tl"}, "set faults.timeline instead"},
		{"a nemesis", scenarios.Faults{Schedule: &faults.Nemesis{}, ScheduleName: "nem"}, "set faults.nemesis instead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := scenarios.Lookup("lock/mutex/leader-kill")
			if err != nil {
				t.Fatal(err)
			}
			s.Faults = tt.faults
			if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate: %v; want an error saying %q", err, tt.want)
			}
		})
	}
	s, err := scenarios.Lookup("lock/mutex/leader-kill")
	if err != nil {
		t.Fatal(err)
	}
	s.Faults.Schedule, s.Faults.ScheduleName = flaps, "leader-flaps"
	if err := s.Validate(); err != nil {
		t.Errorf("Validate with a timeline and a schedule of its own: %v", err)
	}
}
