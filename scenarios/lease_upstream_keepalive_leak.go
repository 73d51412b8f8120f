package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// upstream16942Resets is how many times the schedule resets each of the
// two lockers' connections.
const upstream16942Resets = 30

// resetLockers resets the connections of lockers c1 and c2, each n times,
// for 300 ms every second, c2 half a second after c1: each reset ends
// every keep-alive stream the locker had open, and clientv3 opens a new
// one on the next connection.
func resetLockers(n int) *faults.Timeline {
	var steps []faults.Step
	for i, c := range []string{"c1", "c2"} {
		at := time.Second + time.Duration(i)*500*time.Millisecond
		steps = append(steps, faults.At(at, time.Duration(n)*time.Second,
			faults.Flap(faults.Reset(faults.Client(c)), 300*time.Millisecond, 700*time.Millisecond, n)))
	}
	return &faults.Timeline{Steps: steps}
}

// upstream16942: two lockers on the mutex recipe, each with a session
// whose keep-alive stream the member serving it holds open, while their
// connections are reset again and again. The members are sampled every
// 5 s and once after the workload: how many keep-alive streams each has
// open, and how many receive loops its handlers started are still
// running. In etcd v3.7.3 a stream's handler returns when its client
// goes (LeaseServer.LeaseKeepAlive waits on the stream's context), and
// the loop it started returns with the next receive, which fails once
// the stream is gone: the loops follow the streams down and nothing
// grows, so the scenario expects a pass — the report's leak does not
// show here. The bound is member-resources' default: a member runs no
// more than 2 loops beyond its open streams once a second has passed
// since the last reset.
func upstream16942() []Scenario {
	r := report("etcd-16942")
	w := Workload{Clients: 2, TTL: Duration(2 * time.Second), Hold: Duration(300 * time.Millisecond),
		Duration: Duration(time.Second + upstream16942Resets*time.Second + 3*time.Second)}
	s := upstreamLock("mutex", w, resetLockers(upstream16942Resets),
		[]Check{{Name: checker.CheckerMemberResources}, {Name: checker.CheckerMutualExclusion}}, checker.Expectation{})
	return []Scenario{
		r.scenario(s, "reset-clients", ShowsFixedUpstream,
			"the lockers' connections are reset 60 times in all; every member's keep-alive loops end with their streams, "+
				"and none is left serving a client that has gone"),
	}
}
