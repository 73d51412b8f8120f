package checker

import (
	"strings"
	"testing"
)

// sample is member's KindMemberSample at t seconds with its figures.
func sample(member string, t float64, streams, loops int, heap int64) Operation {
	return mk(member, KindMemberSample, "", t, t, withOut(Output{Values: MemberResourceFigures(streams, loops, heap)}))
}

// reset is a reset of client c from start to end seconds.
func reset(c string, start, end float64) FaultEvent {
	return FaultEvent{Name: "reset(client " + c + ")", Action: "reset", Targets: []string{c}, Start: at(start), End: at(end), Healed: true}
}

func TestMemberResources(t *testing.T) {
	tests := []struct {
		name    string
		h       History
		verdict Verdict
		want    []string // in the summary, or in the first violation's message
	}{
		{
			name: "loops left after the resets",
			h: withFaults(hist(
				sample("m0", 0.5, 2, 2, 10<<20),
				sample("m0", 3, 2, 9, 11<<20), // a reset in force: not judged
				sample("m0", 8, 2, 9, 12<<20),
				sample("m1", 8, 1, 1, 12<<20),
			), reset("c1", 1, 2), reset("c2", 3, 4)),
			verdict: VerdictViolation,
			want:    []string{"member m0 ran 9 keep-alive loops at 8.000s with 2 keep-alive streams open, 7 beyond its streams (slack 2), after 2 client resets or restarts"},
		},
		{
			name: "loops end with their streams",
			h: withFaults(hist(
				sample("m0", 0.5, 2, 2, 10<<20),
				sample("m0", 3, 1, 6, 11<<20),
				sample("m0", 8, 2, 3, 10<<20),
				sample("m1", 8, 0, 0, 10<<20),
			), reset("c1", 1, 2), reset("c2", 3, 4)),
			verdict: VerdictOK,
			want:    []string{"4 samples (3 judged) over 2 client resets or restarts", "m0 3/2, m1 0/0", "10.0 MiB → 10.0 MiB"},
		},
		{
			name:    "no sample",
			h:       withFaults(hist(mk("c1", KindAcquire, "/l", 0, 1)), reset("c1", 1, 2)),
			verdict: VerdictUnknown,
			want:    []string{"no member's resources were sampled"},
		},
		{
			name:    "every sample while a fault is in force or just after",
			h:       withFaults(hist(sample("m0", 1.5, 0, 30, -1), sample("m0", 2.5, 0, 30, -1)), reset("c1", 1, 2)),
			verdict: VerdictUnknown,
			want:    []string{"no sample counts loops and streams at a time with no fault in force and 1s after the last"},
		},
		{
			name:    "a figure that is no count",
			h:       hist(mk("m0", KindMemberSample, "", 1, 1, withOut(Output{Values: []string{"loops=many"}}))),
			verdict: VerdictInvalid,
			want:    []string{`figure "loops=many" is not name=value with a count`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := MemberResources(tc.h, MemberResourcesOptions{})
			if res.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s: %s", res.Verdict, tc.verdict, res.Summary)
			}
			text := res.Summary
			if len(res.Violations) > 0 {
				text += "\n" + res.Violations[0].Message
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("result %q does not say %q", text, w)
				}
			}
		})
	}
}
