package checker

import (
	"strings"
	"testing"
)

// A holder that checks before each step is judged by the steps it began:
// one whose last step began before its successor acquired, and whose
// release came after, excludes (the step's late write is the fenced
// resource's, which refused it); one that began a step after its
// successor acquired does not. Judged by its release, both overlap.
func TestMutualExclusionByChecks(t *testing.T) {
	// c1 holds from 1s; its lease lapses on the server at about 2.4s, and
	// c2 acquires at 2.5s. c1 checked and began a step at 2.3s, whose
	// write at 3s the resource refused, and released at 3.1s.
	steps := func(last float64) History {
		return hist(
			mk("c1", KindAcquire, "L", 0, 1, granted(5)),
			mk("c1", KindCounterIncr, "L", 1.5, 2.2, token(5)),
			mk("c1", KindCounterRead, "L", 1.5, 1.5, token(5), withOut(Output{Count: 0})),
			mk("c1", KindGuardedWrite, "L", 2.2, 2.2, token(5), value("1")),
			mk("c1", KindCounterIncr, "L", last, last+0.7, token(5), failed),
			mk("c1", KindCounterRead, "L", last, last, token(5), withOut(Output{Count: 1})),
			mk("c2", KindAcquire, "L", 1.2, 2.5, granted(7)),
			mk("c2", KindCounterIncr, "L", 2.5, 2.6, token(7)),
			mk("c2", KindCounterRead, "L", 2.5, 2.5, token(7), withOut(Output{Count: 1})),
			mk("c2", KindGuardedWrite, "L", 2.6, 2.6, token(7), value("2")),
			mk("c1", KindGuardedWrite, "L", last+0.7, last+0.7, token(5), value("2"), failed),
			mk("c1", KindRelease, "L", last+0.8, last+0.9),
			mk("c2", KindRelease, "L", 2.7, 2.8),
		)
	}
	for _, tc := range []struct {
		name     string
		last     float64 // when c1 began its last step
		byChecks bool
		want     string // "" for ok, else a part of the overlap's sentence
	}{
		{"a step begun before the successor, by checks", 2.3, true, ""},
		{"a step begun before the successor, by release", 2.3, false, "c1 released at 3.100s"},
		{"a step begun after the successor, by checks", 2.55, true, "judged by its checks: c1 began a step at 2.550s, after c2 acquired it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := MutualExclusion(steps(tc.last), MutexOptions{ByChecks: tc.byChecks})
			if tc.want == "" {
				if res.Verdict != VerdictOK {
					t.Fatalf("verdict %s, want ok: %v", res.Verdict, messages(res))
				}
				return
			}
			if res.Verdict != VerdictViolation || !strings.Contains(strings.Join(messages(res), "\n"), tc.want) {
				t.Fatalf("verdict %s %v, want an overlap saying %q", res.Verdict, messages(res), tc.want)
			}
		})
	}
}
