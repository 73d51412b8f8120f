package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
)

// leasingScenarios are the register family's scenarios through etcd's
// leasing KV (client/v3/leasing), one per client.
//
// Used as its API reads, the leasing KV is not linearizable on etcd
// v3.7.3 even on a healthy cluster: a Put (or Delete) of a key the client
// holds no lease on runs once in a guarded transaction and, finding no
// lease in its way, runs again through the revoking path. The key is
// written twice, at two revisions; the Put answers with the second. A
// reader between the two sees the value at a revision no write answered
// with, and a write of another client that lands between them is
// overwritten by a Put that had already taken effect.
//
// Used correctly — writes as one-operation transactions, which the
// leasing KV runs once, and cached reads only while the client's own
// keepalive proves its lease alive (leasing-guarded) — the register stays
// linearizable with a client cut off past its TTL (upstream/etcd-19091/fixed)
// and under the standard fault mix (register/leasing-guarded/standard-mix).
func leasingScenarios() []Scenario {
	base := Scenario{
		Cluster:  Cluster{Members: 3},
		Workload: Workload{Family: FamilyRegister, Clients: 3, Observers: 1, Duration: Duration(8 * time.Second)},
		Seed:     1,
	}

	twice := base
	twice.Name = "register/leasing/healthy"
	twice.Description = "etcd's leasing KV used as its API reads, on a healthy cluster: a Put of a key the client holds no lease on is written twice, and the register is not linearizable"
	twice.Workload.Recipe = "leasing"
	twice.Workload.Duration = Duration(6 * time.Second)
	// The window is one round trip between the two writes of one Put: at
	// the default think of 50 ms the real clock found it in 13 and 14 runs
	// of 20, at 10 ms in 50 of 50 (and the virtual clock in 20 of 20).
	twice.Workload.Think = Duration(10 * time.Millisecond)
	twice.Checkers = []Check{{Name: checker.CheckerRegisterLinearizable}}
	twice.Expect = checker.Expectation{Checker: checker.CheckerRegisterLinearizable, Violation: checker.ViolationNotLinearizable}

	mix := base
	mix.Name = "register/leasing-guarded/standard-mix"
	mix.Description = "the guarded leasing KV (cached reads only while the client's own keepalive proves its lease alive, writes as one-operation transactions) under the standard fault mix: linearizable, and the watch misses nothing"
	mix.Cluster.Latency = leasingLatency
	mix.Workload.Recipe = "leasing-guarded"
	mix.Faults.Timeline = standardMix()
	mix.Checkers = DefaultCheckers(FamilyRegister)

	return []Scenario{twice, mix}
}

// leasingLatency is the network latency of the guarded leasing KV under
// faults. On etcd v3.7.3 a transaction that writes a key whose lease key
// is held under the client's own lease, but which the client's cache no
// longer holds (the leasing KV empties its cache when its session
// restarts on the same lease, and drops a key whose write failed), is
// sent again and again: its guard expects no lease key, the answer lists
// the client's own, and the leasing KV does not revoke its own keys. Each
// round is a raft entry; the loop ends only when the caller's context
// does. On a network without latency each round takes no virtual time, so
// that deadline never comes and the clock stands still (a hundred thousand
// raft entries in one virtual instant); with a millisecond per hop the
// loop runs until the deadline, as it would on a real network.
const leasingLatency = Duration(time.Millisecond)
