package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// freezeLeadersAndFollowers stops a member for 1.5s six times, 1.5s
// apart from 1s on: the leader, then a follower, in turn. A stopped
// leader is still leader when it runs again, for a millisecond or two, and
// a stopped follower has missed every entry of the stop: both are the
// moment a member may answer a read from what it knew before.
func freezeLeadersAndFollowers() *faults.Timeline {
	var steps []faults.Step
	for i := range 6 {
		t := faults.Leader
		if i%2 == 1 {
			t = faults.Follower
		}
		at := time.Second + time.Duration(i)*3*time.Second
		steps = append(steps, faults.At(at, 1500*time.Millisecond, faults.Freeze(t)))
	}
	return &faults.Timeline{Steps: steps}
}

// upstream20418: etcd's own KV — reads, writes, compare-and-swaps and
// deletes by three clients that talk to every member, and a watcher —
// while the leader and a follower are stopped in turn (SIGSTOP) and
// resumed. A request that reached a member as it stopped waits for it and
// is served as it resumes, which is the moment etcd #20418 reports stale
// reads; a patience of 3s lets it. Judged linearizable with every write
// whose answer did not come in time as one that may take effect at any
// later moment: such a write, committed after the resume, is what the
// first "stale reads" seen under a freeze were (docs/upstream.md). Fixed
// in this version.
func upstream20418() []Scenario {
	r := report("etcd-20418")
	s := Scenario{
		Cluster: Cluster{Members: 3, Latency: Duration(time.Millisecond)},
		Workload: Workload{Family: FamilyRegister, Clients: 3, Observers: 1, Think: Duration(20 * time.Millisecond),
			Patience: Duration(3 * time.Second), Duration: Duration(19 * time.Second)},
		Faults:   Faults{Timeline: freezeLeadersAndFollowers()},
		Checkers: []Check{{Name: checker.CheckerRegisterLinearizable}, {Name: checker.CheckerWatchGuarantees}},
	}
	return []Scenario{
		r.scenario(s, "freeze-members", ShowsFixedUpstream,
			"fixed in this version: the leader and a follower stopped in turn and resumed, requests served as they "+
				"resume; every read is linearizable"),
	}
}
