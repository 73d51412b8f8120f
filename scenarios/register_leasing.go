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
// linearizable with a client cut off past its TTL (upstream/etcd-19091/fixed).
// Under the standard fault mix it is not registered: about one run in ten
// stops the virtual clock (see docs/upstream.md, the leasing KV's section).
func leasingScenarios() []Scenario {
	base := Scenario{
		Cluster:  Cluster{Members: 3},
		Workload: Workload{Family: FamilyRegister, Clients: 3, Observers: 1, Duration: Duration(8 * time.Second)},
		Seed:     1,
	}

	twice := base
	twice.Name = "register/leasing/healthy"
	twice.Description = "etcd's leasing KV used as its API reads, on a healthy cluster: a Put of a key the client holds no lease on is written twice, and the register is not linearizable"
	twice.Workload.Recipe = RegisterLeasing
	twice.Workload.Duration = Duration(6 * time.Second)
	twice.Checkers = []Check{{Name: checker.CheckerRegisterLinearizable}}
	twice.Expect = checker.Expectation{Checker: checker.CheckerRegisterLinearizable, Violation: checker.ViolationNotLinearizable}

	return []Scenario{twice}
}
