package scenarios_test

import (
	"context"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// The clients' connections record the keys the recipe deletes beside
// those it puts, in History.Calls: a mutex's unlock deletes the key its
// lock put, and the delete names that key and how many keys it took.
func TestKeyTapRecordsDeletes(t *testing.T) {
	s, err := scenarios.Lookup("lock/mutex/contention")
	if err != nil {
		t.Fatal(err)
	}
	s.Workload.Duration = scenarios.Duration(5 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := scenarios.Run(ctx, s, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := res.History()
	for _, op := range h.Ops {
		if op.Kind.IsCall() {
			t.Fatalf("%s is among the operations, not the calls", op)
		}
	}
	put := map[string]bool{}
	matched := 0
	for _, op := range h.Calls {
		switch {
		case op.Kind == checker.KindPut && op.Outcome == checker.OutcomeOK:
			put[op.Key] = true
		case op.Kind == checker.KindDeleteRange && op.Outcome == checker.OutcomeOK && op.Input.Value == "" && put[op.Key]:
			if op.Output.Count > 1 {
				t.Errorf("%s deleted %d keys, want at most the one it names", op, op.Output.Count)
			}
			delete(put, op.Key)
			if op.Output.Count == 1 {
				matched++
			}
		}
	}
	if matched == 0 {
		t.Errorf("no delete of a key the recipe put was recorded among %d calls", len(h.Calls))
	}
}
