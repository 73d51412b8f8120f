package scenarios_test

import (
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// The serializable register scenario's violation comes from its reads:
// the same clients under the same partition, reading linearizably, pass.
func TestRegisterLinearizableReadsUnderPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a scenario against a real cluster")
	}
	s, err := scenarios.Lookup("register/serializable/partition-minority")
	if err != nil {
		t.Fatal(err)
	}
	if s.Expect.Checker != checker.CheckerRegisterLinearizable {
		t.Fatalf("%s expects %v, want a violation of %s", s.Name, s.Expect, checker.CheckerRegisterLinearizable)
	}
	s.Name = "register/kv/partition-minority"
	s.Workload.Serializable = false
	s.Expect = checker.Expectation{}
	runScenario(t, s)
}
