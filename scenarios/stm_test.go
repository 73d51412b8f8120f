package scenarios_test

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
)

// Each stm scenario meets its expectation on the virtual clock: the two
// serializable levels pass under the standard mix, RepeatableReads shows
// read skew and ReadCommitted loses money.
func TestSTM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scenarios against real clusters")
	}
	list, err := scenarios.Match("stm/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(scenarios.STMLevels()) {
		t.Fatalf("%d stm scenarios, want one per level (%v)", len(list), scenarios.STMLevels())
	}
	for _, s := range list {
		scenarios.Test(t, s)
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
