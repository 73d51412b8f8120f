package scenarios

import (
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
)

// TestFirstViolation: a violation shows when the last operation it names
// began; the run's first is the earliest of those, nested checks' included.
func TestFirstViolation(t *testing.T) {
	op := func(call time.Duration) checker.Operation { return checker.Operation{Call: call} }
	s := time.Second
	r := &Result{Checks: []checker.Result{
		{Checker: "fencing", Violations: []checker.Violation{{Ops: []checker.Operation{op(1 * s), op(5 * s)}}}},
		{Checker: "lock-linearizable", Parts: []checker.Result{
			{Violations: []checker.Violation{{Ops: []checker.Operation{op(4 * s), op(3 * s)}}, {Message: "no operations"}}},
		}},
	}}
	if got, ok := r.FirstViolation(); !ok || got != 4*s {
		t.Errorf("FirstViolation = %v, %v; want 4s, true (the nested violation's last call)", got, ok)
	}
	if _, ok := (&Result{Checks: []checker.Result{{Checker: "fencing"}}}).FirstViolation(); ok {
		t.Error("FirstViolation of a run without violations: ok is true")
	}
}
