package faults_test

import (
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
)

// Bad schedules are refused before they run, with an error that names the
// fault, its target and why. The test stays on the real clock because its
// subtests share two clusters and a synctest bubble cannot hold t.Run; it
// waits for nothing but the clusters' start (cluster.DefaultStartTimeout).
func TestValidate(t *testing.T) {
	one := cluster.New(t, cluster.Config{Members: 1})
	three := cluster.New(t, cluster.Config{Members: 3})
	for _, name := range []string{"c1", "c2"} {
		if _, err := three.Client(name); err != nil {
			t.Fatal(err)
		}
	}
	s := time.Second
	timeline := func(steps ...faults.Step) faults.Timeline { return faults.Timeline{Steps: steps} }
	tests := []struct {
		name     string
		cluster  *cluster.Cluster
		schedule faults.Schedule
		want     []string // substrings of the error; none for a valid schedule
	}{
		{"valid", three, timeline(
			faults.At(0, s, faults.Kill(faults.Leader)),
			faults.At(s/2, s, faults.Isolate(faults.Follower)), // never the leader at the same moment
			faults.At(s/2, s, faults.Pause(faults.Client("c1"))),
			faults.At(s/2, 0, faults.Compact()),
			faults.At(2*s, s, faults.Partition(faults.Majority)),
		), nil},
		{"majority split of one member", one, timeline(faults.At(0, s, faults.Partition(faults.Majority))),
			[]string{"partition(majority)", "every member of a 1-member cluster"}},
		{"minority of one member", one, timeline(faults.At(0, s, faults.Kill(faults.Minority))),
			[]string{"kill(minority)", "minority of a 1-member cluster is empty"}},
		{"unknown member", three, timeline(faults.At(0, s, faults.Kill(faults.Member(7)))),
			[]string{"kill(m7)", "no member m7"}},
		{"unknown client", three, timeline(faults.At(0, s, faults.Pause(faults.Client("nobody")))),
			[]string{"pause(client nobody)", `no client "nobody"`}},
		{"zero duration", three, timeline(faults.At(0, 0, faults.Kill(faults.Leader))),
			[]string{"kill(leader)", "duration is zero"}},
		{"negative duration", three, timeline(faults.At(0, -s, faults.Isolate(faults.Client("c1")))),
			[]string{"isolate(client c1)", "duration -1s is negative"}},
		{"negative time", three, timeline(faults.At(-s, s, faults.Stop(faults.Follower))),
			[]string{"stop(follower)", "time -1s is negative"}},
		{"instant fault with a duration", three, timeline(faults.At(0, s, faults.Defrag(faults.Leader))),
			[]string{"defrag(leader)", "instant"}},
		{"overlap on the same target", three, timeline(
			faults.At(0, 2*s, faults.Kill(faults.Leader)),
			faults.At(s, 2*s, faults.Isolate(faults.Leader)),
		), []string{"step 1 (at 1s for 2s: isolate(leader)) overlaps step 0 (at 0s for 2s: kill(leader)): both aim at leader"}},
		{"overlap on a member that may be the follower", three, timeline(
			faults.At(0, 2*s, faults.Stop(faults.Follower)),
			faults.At(s, 2*s, faults.Kill(faults.Member(1))),
		), []string{"overlaps", "m1 and follower may be the same node"}},
		{"overlap of a lock holder and a client", three, timeline(
			faults.At(0, 2*s, faults.Pause(faults.LockHolder("L"))),
			faults.At(s, 2*s, faults.Reset(faults.Client("c2"))),
		), []string{"overlaps", "client c2 and lock-holder L"}},
		{"client fault aimed at a member", three, timeline(faults.At(0, s, faults.Pause(faults.Leader))),
			[]string{"pause(leader)", "leader is a member; pause needs clients"}},
		{"member fault aimed at a client", three, timeline(faults.At(0, s, faults.Kill(faults.Client("c1")))),
			[]string{"kill(client c1)", "client c1 is a client; kill needs members"}},
		{"ring of three", three, timeline(faults.At(0, s, faults.Ring())),
			[]string{"ring", "needs at least 4"}},
		{"storm on one member", one, timeline(faults.At(0, s, faults.LeaderStorm(100*time.Millisecond))),
			[]string{"leader-storm(every 100ms)", "1-member cluster is too small"}},
		{"storm without an interval", three, timeline(faults.At(0, s, faults.LeaderStorm(0))),
			[]string{"leader-storm(every 0s)", "interval 0s must be positive"}},
		{"negative delay", three, timeline(faults.At(0, s, faults.Delay(faults.Client("c1"), -s, 0))),
			[]string{"delay(client c1, -1s±0s)", "must be positive"}},
		{"cut a member from itself", three, timeline(faults.At(0, s, faults.Cut(faults.Leader, faults.Leader))),
			[]string{"cut(leader → leader)", "from itself"}},
		{"zero fault", three, timeline(faults.Step{At: 0, For: s}),
			[]string{"zero Fault"}},
		{"trigger without a duration", three, faults.Timeline{Triggers: []faults.Trigger{
			faults.On(faults.Match{Kind: checker.KindAcquire}, 0, faults.Pause(faults.LockHolder("L"))),
		}}, []string{"trigger 0", "pause(lock-holder L)", "duration is zero"}},
		{"trigger on a kind that does not exist", three, faults.Timeline{Triggers: []faults.Trigger{
			faults.On(faults.Match{Kind: "aquire"}, s, faults.Pause(faults.LockHolder("L"))),
		}}, []string{"trigger 0", `no operation kind "aquire"`, "acquire, release", `starting with "x-"`}},
		{"trigger on an outcome that does not exist", three, faults.Timeline{Triggers: []faults.Trigger{
			faults.On(faults.Match{Kind: checker.KindRelease, Outcome: "maybe"}, s, faults.Pause(faults.LockHolder("L"))),
		}}, []string{"trigger 0", `no outcome "maybe"`}},
		{"crash of a client the workload does not have", three, timeline(faults.At(0, s, faults.Crash(faults.Client("c9")))),
			[]string{"crash(client c9)", `no client "c9"`}},
		{"crash aimed at a member", three, timeline(faults.At(0, s, faults.Crash(faults.Leader))),
			[]string{"crash(leader)", "crash needs clients"}},
		{"step past the end", three, faults.Timeline{End: s, Steps: []faults.Step{faults.At(0, 2*s, faults.Kill(faults.Leader))}},
			[]string{"kill(leader)", "after the timeline's end 1s"}},
		{"nemesis with no mix", three, faults.Nemesis{MinFor: s, MaxFor: s},
			[]string{"Mix is empty"}},
		{"nemesis with bad weights and durations", three, faults.Nemesis{
			Mix:    []faults.Choice{faults.Weighted(0, faults.Kill(faults.Follower)), faults.Weighted(1, faults.Ring())},
			MinFor: 2 * s, MaxFor: s,
		}, []string{"choice 0 (kill(follower)): weight 0", "choice 1: faults: ring", "MinFor 2s and MaxFor 1s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.schedule.Validate(tt.cluster)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v; want no error", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate: no error; want one saying %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate: %v\nwant it to say %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "faults: ") {
				t.Errorf("error %q does not start with \"faults: \"", err)
			}
		})
	}
}
