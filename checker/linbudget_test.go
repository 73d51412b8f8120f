package checker

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/etcdsim/etcdsim/internal/wallclock"
)

// TestLinBudgetRunsOutInABubble checks that the search's budget is wall
// time. In a synctest bubble the virtual clock stands still while the
// search computes, so a budget read from time.Now never ran out: a search
// of hours ran for hours, and the bubble's watchdog called the run frozen.
func TestLinBudgetRunsOutInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Searched whole, this history takes about 1.6 s (longer under the
		// race detector); on a budget of 1 ms it must come back undecided.
		start := wallclock.Now()
		res := LockLinearizable(hardLockHistory(8), LinOptions{Timeout: time.Millisecond})
		t.Logf("8 acquires of unknown outcome, budget 1ms: %s after %v of wall time", res.Verdict, wallclock.Since(start))
		checkResult(t, res.Result, VerdictUnknown, "")
		if !strings.Contains(res.Summary, "timed out") {
			t.Fatalf("summary %q does not say the search timed out", res.Summary)
		}

		// A search of hours ends on its budget of 300 ms.
		start = wallclock.Now()
		res = LockLinearizable(hardLockHistory(12), LinOptions{Timeout: 300 * time.Millisecond})
		t.Logf("12 acquires of unknown outcome, budget 300ms: %s after %v of wall time", res.Verdict, wallclock.Since(start))
		checkResult(t, res.Result, VerdictUnknown, "")

		// porcupine's own search, which Visualize runs, is bounded by a
		// timer of the bubble's clock: a search that ran out of time is
		// refused in a bubble, one that was decided is drawn.
		var buf bytes.Buffer
		if err := res.Visualize(&buf); err == nil || !strings.Contains(err.Error(), "outside the bubble") {
			t.Errorf("Visualize of an undecided search in a bubble returned %v; want an error that says to visualize outside the bubble", err)
		}
		decided := LockLinearizable(lockCases[9].h, LinOptions{})
		checkResult(t, decided.Result, VerdictViolation, "")
		if err := decided.Visualize(&buf); err != nil {
			t.Errorf("Visualize of a decided search in a bubble: %v", err)
		}
	})
}
