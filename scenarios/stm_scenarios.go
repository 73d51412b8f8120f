package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
)

// stmScenarios are the stm family's registered scenarios: the bank under
// the standard fault mix at each of etcd's four STM isolation levels. The
// two serializable levels pass. RepeatableReads validates every read at
// commit, so its transfers are serializable, but the reads of one attempt
// come from different revisions: an audit that acts on what it read sees
// read skew. ReadCommitted validates nothing: concurrent transfers
// overwrite each other's balances, and money appears and vanishes.
func stmScenarios() []Scenario {
	base := Scenario{
		// A little latency gives each request virtual time, so that
		// transactions overlap as they do on a network.
		Cluster: Cluster{Members: 3, Latency: Duration(time.Millisecond)},
		Workload: Workload{Family: FamilySTM, Clients: 4, Observers: 2, Duration: Duration(8 * time.Second),
			Think: Duration(stmThink), ThinkJitter: Duration(stmThink / 2), Patience: Duration(time.Second)},
		Faults: Faults{Timeline: standardMix()},
		Seed:   1,
	}
	var out []Scenario
	for _, l := range []struct {
		level, what string
		expect      checker.Expectation
	}{
		{level: "serializable-snapshot", what: "no audit sees money made or lost, and the transactions are serializable"},
		{level: "serializable", what: "no audit sees money made or lost, and the transactions are serializable"},
		{level: "repeatable-reads",
			what:   "an audit's reads come from different revisions and it sees the books out of balance (read skew: G-single)",
			expect: checker.Expectation{Checker: checker.CheckerSerializable, Violation: checker.ViolationNotSerializable}},
		{level: "read-committed",
			what:   "nothing is validated at commit: concurrent transfers overwrite each other's balances and audits find money made or lost",
			expect: checker.Expectation{Checker: checker.CheckerBankTotal, Violation: checker.ViolationTotalChanged}},
	} {
		s := base
		s.Name = "stm/" + l.level + "/standard-mix"
		s.Description = "bank transfers and audits in etcd's STM at " + l.level + " under a leader kill, a minority partition, a client cut off, a leader storm and a compaction: " + l.what
		s.Workload.Recipe = l.level
		s.Expect = l.expect
		out = append(out, s)
	}
	return out
}
