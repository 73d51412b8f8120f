package checker

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Double barrier enters that must end once everyone has come, the failing
// histories first. The bound is 3 s.
func TestBarrierStuckEnter(t *testing.T) {
	tests := []struct {
		name    string
		h       History
		want    Verdict
		wantMsg string
	}{
		{
			name: "everyone came and an enter waited on",
			h: hist(
				mk("c1", KindEnter, "B", 0, 9, count(2)),
				mk("c2", KindEnter, "B", 1, 1.5, count(2)),
			),
			want: VerdictViolation,
			wantMsg: "c1's Enter of barrier B, called at 0.000s, was still waiting at 4.000s, 3s after 1.000s, " +
				"with all 2 of its count arriving or inside and none leaving all along",
		},
		{
			name: "an enter that never returned, the last heal after everyone came",
			h: withFaults(hist(
				mk("c1", KindEnter, "B", 0, never, count(2), gaveUp(9)),
				mk("c2", KindEnter, "B", 1, never, count(2), gaveUp(9)),
			), healed("isolate(c1)", 0.5, 2)),
			want: VerdictViolation, wantMsg: "was still waiting at 5.000s, 3s after 2.000s",
		},
		{
			name: "a slow pass within the bound",
			h: hist(
				mk("c1", KindEnter, "B", 0, 3.5, count(2)),
				mk("c2", KindEnter, "B", 1, 3.5, count(2)),
			),
			want: VerdictOK,
		},
		{
			name: "one short: waiting is right",
			h: hist(
				mk("c1", KindEnter, "B", 0, never, count(3), gaveUp(9)),
				mk("c2", KindEnter, "B", 1, never, count(3), gaveUp(9)),
			),
			want: VerdictOK,
		},
		{
			name: "a client that gave up and came back late",
			h: hist(
				mk("c1", KindEnter, "B", 0, 8, count(2)),
				mk("c2", KindEnter, "B", 1, never, count(2), gaveUp(2)),
				mk("c2", KindEnter, "B", 6, 8, count(2)),
			),
			want: VerdictOK,
		},
		{
			name: "a crashed client is no longer arriving",
			h: hist(
				mk("c1", KindEnter, "B", 0, never, count(2), gaveUp(9)),
				mk("c2", KindEnter, "B", 1, never, count(2), gaveUp(9)),
				crash("c2", 1.5),
			),
			want: VerdictOK,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := BarrierSafety(tt.h, BarrierOptions{Bound: 3 * time.Second})
			if res.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %s %q", res.Verdict, tt.want, res.Summary, messages(res))
			}
			if tt.wantMsg != "" && !slices.ContainsFunc(messages(res), func(m string) bool { return strings.Contains(m, tt.wantMsg) }) {
				t.Errorf("no sentence contains %q; have %q", tt.wantMsg, messages(res))
			}
		})
	}
}
