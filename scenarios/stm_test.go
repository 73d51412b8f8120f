package scenarios_test

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// The stm family has one scenario per isolation level, each with the
// verdict its level earns: the two serializable levels pass under the
// standard mix, RepeatableReads shows read skew and ReadCommitted loses
// money. TestRegistered runs them and holds each to its expectation.
func TestSTM(t *testing.T) {
	list, err := scenarios.Match("stm/*")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]checker.Expectation{
		"serializable-snapshot": {},
		"serializable":          {},
		"repeatable-reads":      {Checker: checker.CheckerSerializable, Violation: checker.ViolationNotSerializable},
		"read-committed":        {Checker: checker.CheckerBankTotal, Violation: checker.ViolationTotalChanged},
	}
	if len(list) != len(scenarios.STMLevels()) || len(list) != len(want) {
		t.Fatalf("%d stm scenarios, want one per level (%v)", len(list), scenarios.STMLevels())
	}
	for _, s := range list {
		e, ok := want[s.Workload.Recipe]
		switch {
		case !ok:
			t.Errorf("%s: level %q is none of %v", s.Name, s.Workload.Recipe, scenarios.STMLevels())
		case s.Expect != e:
			t.Errorf("%s: expects %+v, want %+v", s.Name, s.Expect, e)
		}
	}
}

// An isolation level etcd does not have is refused, with the four it has.
func TestSTMUnknownLevel(t *testing.T) {
	s, err := scenarios.Lookup("stm/serializable/standard-mix")
	if err != nil {
		t.Fatal(err)
	}
	s.Workload.Recipe = "snapshot"
	err = s.Validate()
	if err == nil {
		t.Fatal("Validate accepted isolation level \"snapshot\"")
	}
	for _, want := range append([]string{`"snapshot"`}, scenarios.STMLevels()...) {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}
