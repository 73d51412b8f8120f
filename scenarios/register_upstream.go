package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// cacheThenCutOff is n rounds, 4.5 s apart from 0.5 s on, of: writer
// paused for 3 s, so that reader reads and caches the keys undisturbed
// (a leasing KV whose lease on a key was revoked waits 2 s before it
// takes one again); 2.5 s in, reader cut off from every member for
// 2.2 s, longer than its session's TTL of 1 s plus the second its lease
// library may take to notice. The writer wakes while the reader is cut
// off: its writes of the keys the reader holds wait for the reader's
// lease to expire, and land the moment it does.
func cacheThenCutOff(reader, writer string, n int) *faults.Timeline {
	var steps []faults.Step
	for i := range n {
		at := 500*time.Millisecond + time.Duration(i)*4500*time.Millisecond
		steps = append(steps,
			faults.At(at, 3*time.Second, faults.Pause(faults.Client(writer))),
			faults.At(at+2500*time.Millisecond, 2200*time.Millisecond, faults.Isolate(faults.Client(reader))))
	}
	return &faults.Timeline{Steps: steps}
}

// upstream19091 runs the register workload through a leasing KV per
// client, writes sent as one-operation transactions so that only the
// cache is on trial, while c1, which only reads, caches the keys and is cut off from every
// member for longer than its session's TTL, twice (cacheThenCutOff);
// and the same with the guard that serves cached reads only while the
// lease is known alive.
func upstream19091() []Scenario {
	r := report("etcd-19091")
	s := Scenario{
		Cluster: Cluster{Members: 3},
		Workload: Workload{Family: FamilyRegister, Recipe: "leasing-txn-writes", Clients: 2, Readers: 1, Observers: 1,
			Duration: Duration(10 * time.Second), Think: Duration(25 * time.Millisecond), Patience: Duration(100 * time.Millisecond)},
		Faults:   Faults{Timeline: cacheThenCutOff("c1", "c2", 2)},
		Checkers: []Check{{Name: checker.CheckerRegisterLinearizable}},
		Expect:   checker.Expectation{Checker: checker.CheckerRegisterLinearizable, Violation: checker.ViolationNotLinearizable},
	}
	fixed := s
	fixed.Workload.Recipe = "leasing-guarded"
	fixed.Expect = checker.Expectation{}
	return []Scenario{
		r.scenario(s, "cut-off-reader", ShowsReport,
			"a client cut off past its session's TTL keeps serving its cached values while another client's writes go through: stale reads"),
		r.scenario(fixed, "fixed", ShowsFix,
			"the same cut-off client serves cached reads only while its own keepalive proves the lease alive, and reads from the cluster after: linearizable"),
	}
}
