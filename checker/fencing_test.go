package checker

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFencing(t *testing.T) {
	tests := []struct {
		name        string
		h           History
		want        Verdict
		wantMsg     string
		wantSummary string             // checked when not empty
		wantMetrics map[string]float64 // checked when not nil
	}{
		{
			name: "tokens increase; a stale write is rejected and counted",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1, granted(10)),
				mk("c1", KindGuardedWrite, "/jobs", 1, 2, token(10)),
				mk("c1", KindGuardedWrite, "/jobs", 2, 3, token(10)),
				mk("c2", KindAcquire, "/jobs", 4, 5, granted(12)),
				mk("c2", KindGuardedWrite, "/jobs", 5, 6, token(12)),
				mk("c1", KindGuardedWrite, "/jobs", 7, 8, token(10), failed),
				mk("c3", KindGuardedWrite, "/jobs", 7, never, token(11)),
			),
			want: VerdictOK,
			wantMetrics: map[string]float64{"accepted": 3, "stale_rejected": 1, "fresh_rejected": 0,
				"unknown": 1, "acquire_tokens": 2, "violations": 0},
		},
		{
			name: "concurrent writes may land in either order",
			h: hist(
				mk("c1", KindGuardedWrite, "/jobs", 0, 5, token(12)),
				mk("c2", KindGuardedWrite, "/jobs", 1, 2, token(10)),
			),
			want: VerdictOK,
		},
		{
			name: "a write with a current token rejected is counted",
			h: hist(
				mk("c1", KindGuardedWrite, "/jobs", 0, 1, token(10)),
				mk("c2", KindGuardedWrite, "/jobs", 2, 3, token(12), failed),
			),
			want:        VerdictOK,
			wantMetrics: map[string]float64{"accepted": 1, "stale_rejected": 0, "fresh_rejected": 1, "unknown": 0, "acquire_tokens": 0, "violations": 0},
		},
		{
			name: "a stale write was accepted",
			h: hist(
				mk("c2", KindGuardedWrite, "/jobs", 5, 6, token(12)),
				mk("c1", KindGuardedWrite, "/jobs", 7, 8, token(10)),
			),
			want:    VerdictViolation,
			wantMsg: "resource /jobs accepted c1's write with token 10 at 7.000s after accepting c2's write with token 12 at 6.000s",
		},
		{
			name: "two clients wrote with one token",
			h: hist(
				mk("c1", KindGuardedWrite, "/jobs", 0, 1, token(12)),
				mk("c2", KindGuardedWrite, "/jobs", 2, 3, token(12)),
			),
			want:    VerdictViolation,
			wantMsg: "accepted c2's write with token 12 at 2.000s after accepting c1's write with token 12",
		},
		{
			name: "the lock handed out a smaller token later",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1, granted(12)),
				mk("c1", KindRelease, "/jobs", 1, 2),
				mk("c2", KindAcquire, "/jobs", 3, 4, granted(9)),
				mk("c2", KindGuardedWrite, "/jobs", 5, 6, token(9)),
			),
			want:    VerdictViolation,
			wantMsg: "lock /jobs granted token 9 to c2 at 4.000s after granting token 12 to c1 at 1.000s",
		},
		{
			name:    "a guarded write with a negative token",
			h:       hist(mk("c1", KindGuardedWrite, "/jobs", 0, 1, token(-1))),
			want:    VerdictInvalid,
			wantMsg: "guarded-write with a negative fencing token",
		},
		{
			name:        "a lock without tokens: nothing to judge, and the summary says why",
			h:           hist(mk("c1", KindGuardedWrite, "/jobs", 0, 1), mk("c2", KindGuardedWrite, "/jobs", 2, 3)),
			want:        VerdictUnknown,
			wantSummary: "no guarded write carried a fencing token",
		},
		{
			name: "unfenced writes beside fenced ones are left out",
			h: hist(
				mk("c1", KindGuardedWrite, "/jobs", 0, 1, token(5)),
				mk("c2", KindGuardedWrite, "/jobs", 2, 3),
				mk("c3", KindGuardedWrite, "/jobs", 4, 5, token(6)),
			),
			want: VerdictOK,
		},
		{
			name: "nothing to judge",
			h:    hist(mk("c1", KindAcquire, "/jobs", 0, 1, granted(3))),
			want: VerdictUnknown,
		},
		{
			name: "every write timed out",
			h:    hist(mk("c1", KindGuardedWrite, "/jobs", 0, never, token(3))),
			want: VerdictUnknown,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Fencing(tc.h, FencingOptions{})
			checkResult(t, res, tc.want, tc.wantMsg)
			if !strings.Contains(res.Summary, tc.wantSummary) {
				t.Errorf("summary %q does not say %q", res.Summary, tc.wantSummary)
			}
			if tc.wantMetrics != nil {
				if diff := cmp.Diff(tc.wantMetrics, res.Metrics); diff != "" {
					t.Errorf("metrics (-want +got):\n%s", diff)
				}
			}
		})
	}
}
