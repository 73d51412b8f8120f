package checker

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestLockLinearizable(t *testing.T) {
	for _, tc := range lockCases {
		t.Run(tc.name, func(t *testing.T) {
			res := LockLinearizable(tc.h, LinOptions{})
			checkResult(t, res.Result, tc.want, "")
			if tc.want == VerdictViolation && !strings.Contains(res.Violations[0].Message, "lock /jobs is not linearizable") {
				t.Errorf("violation %q does not name the lock", res.Violations[0].Message)
			}
		})
	}
}

func TestLockLinearizableInvalid(t *testing.T) {
	tests := []struct {
		name    string
		h       History
		wantMsg string
	}{
		{
			name:    "a release with no matching acquire",
			h:       hist(mk("c1", KindRelease, "/jobs", 0, 1)),
			wantMsg: "release with no matching acquire",
		},
		{
			name:    "a return before its call",
			h:       hist(mk("c1", KindAcquire, "/jobs", 2, 1)),
			wantMsg: "returns at 1.000s, before its call at 2.000s",
		},
		{
			name:    "an operation without a client",
			h:       hist(mk("", KindAcquire, "/jobs", 0, 1)),
			wantMsg: "operation without a client",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkResult(t, LockLinearizable(tc.h, LinOptions{}).Result, VerdictInvalid, tc.wantMsg)
		})
	}
}

func TestLockLinearizableNamesTheViolatingOperation(t *testing.T) {
	h := hist(
		mk("c1", KindAcquire, "/jobs", 0, 1),
		mk("c1", KindRelease, "/jobs", 2, 2.1),
		mk("c2", KindAcquire, "/jobs", 3, 4),
		mk("c3", KindAcquire, "/jobs", 5, 6),
	)
	res := LockLinearizable(h, LinOptions{})
	checkResult(t, res.Result, VerdictViolation, "no order of its operations explains op 3 (c3 acquire /jobs [5.000s, 6.000s] ok); the longest linearizable prefix holds 3 of its 4 operations")
}

// hardLockHistory is not linearizable (two acquires overlap at the end),
// and has many operations of unknown outcome for the search to try first.
func hardLockHistory(n int) History {
	var ops []Operation
	for i := range n {
		c := "u" + string(rune('a'+i))
		ops = append(ops, mk(c, KindAcquire, "/jobs", float64(i)*0.01, never))
		ops = append(ops, mk(c, KindRelease, "/jobs", 1+float64(i)*0.01, never))
	}
	ops = append(ops, mk("x", KindAcquire, "/jobs", 2, 3), mk("y", KindAcquire, "/jobs", 2, 3))
	return hist(ops...)
}

func TestLockLinearizableTimeoutIsUnknown(t *testing.T) {
	res := LockLinearizable(hardLockHistory(12), LinOptions{Timeout: time.Millisecond})
	checkResult(t, res.Result, VerdictUnknown, "")
	if !strings.Contains(res.Summary, "timed out") {
		t.Errorf("summary %q does not say the search timed out", res.Summary)
	}
}

func TestLockLinearizableVisualize(t *testing.T) {
	h := withFaults(lockCases[9].h, healed("partition(minority)", 3, 4))
	res := LockLinearizable(h, LinOptions{})
	checkResult(t, res.Result, VerdictViolation, "")
	var buf bytes.Buffer
	if err := res.Visualize(&buf); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{"<html", "partition(minority)", "violation", "acquire(c2)", "held by c1"} {
		if !strings.Contains(html, want) {
			t.Errorf("visualization lacks %q", want)
		}
	}
	path := t.TempDir() + "/lock.html"
	if err := res.VisualizePath(path); err != nil {
		t.Fatal(err)
	}
	if err := LockLinearizable(hist(mk("c1", KindRelease, "/jobs", 0, 1)), LinOptions{}).Visualize(&buf); err == nil {
		t.Error("visualizing an invalid history's result did not fail")
	}
}
