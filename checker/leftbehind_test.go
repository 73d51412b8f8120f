package checker

import (
	"strings"
	"testing"
	"time"
)

// regAt is an ok registration by client of addr under key, over [call, ret].
func regAt(client, key string, call, ret float64) Operation {
	return mk(client, KindRegister, "svc", call, ret, value("10.0.0.1:80"), withOut(Output{Key: key}))
}

// listAt is o1's listing of svc/ at t seconds, finding keys.
func listAt(t float64, keys ...string) Operation {
	return mk("o1", KindList, "svc/", t, t+0.01, withOut(Output{Values: keys}))
}

func TestLeftBehind(t *testing.T) {
	ttl := JudgeOptions{TTL: time.Second, Bound: time.Second} // a key let go must be gone 2 s later
	for _, tc := range []struct {
		name string
		h    History
		want Verdict
		msg  string // in the first violation or the summary
	}{
		{"registered again under a new key, the old one kept alive", hist(
			regAt("c1", "svc/a#1", 0, 0.1),
			listAt(1, "svc/a#1"),
			regAt("c1", "svc/a#2", 3, 3.1),
			listAt(4, "svc/a#1", "svc/a#2"),
			listAt(5.5, "svc/a#1", "svc/a#2"),
			listAt(6, "svc/a#1", "svc/a#2"),
		), VerdictViolation, "svc/a#1 was left behind: c1 registered again under svc/a#2 at 3.100s (op 2), yet op 4 (o1's listing of svc/ at 5.500s) still found it"},
		{"the old key gone within the TTL", hist(
			regAt("c1", "svc/a#1", 0, 0.1),
			regAt("c1", "svc/a#2", 3, 3.1),
			listAt(4, "svc/a#1", "svc/a#2"),
			listAt(5.5, "svc/a#2"),
		), VerdictOK, "2 registrations under a named key, 2 listings"},
		{"registered again under the same key", hist(
			regAt("c1", "svc/a", 0, 0.1),
			regAt("c1", "svc/a", 3, 3.1),
			listAt(9, "svc/a"),
		), VerdictOK, ""},
		{"a crashed backend's key outliving its lease", hist(
			regAt("c1", "svc/a", 0, 0.1),
			crash("c1", 2),
			listAt(4.5, "svc/a"),
		), VerdictViolation, "c1 crashed at 2.000s (op 1)"},
		{"a key taken up again by the restarted process", hist(
			regAt("c1", "svc/a", 0, 0.1),
			crash("c1", 2),
			regAt("c1", "svc/a", 2.5, 2.6),
			listAt(6, "svc/a"),
		), VerdictOK, ""},
		{"a fault in force at the listing", withFaults(hist(
			regAt("c1", "svc/a#1", 0, 0.1),
			regAt("c1", "svc/a#2", 1, 1.1),
			listAt(6, "svc/a#1", "svc/a#2"),
		), healed("kill(leader)", 5, 7)), VerdictOK, ""},
		{"counted from the last heal", withFaults(hist(
			regAt("c1", "svc/a#1", 0, 0.1),
			regAt("c1", "svc/a#2", 1, 1.1),
			listAt(8, "svc/a#1", "svc/a#2"),
			listAt(9.5, "svc/a#1", "svc/a#2"),
		), healed("kill(leader)", 5, 7)), VerdictViolation, "op 3 (o1's listing of svc/ at 9.500s)"},
		{"deregistered and still listed", hist(
			regAt("c1", "svc/a", 0, 0.1),
			mk("c1", KindDeregister, "svc", 1, 1.1, value("10.0.0.1:80")),
			listAt(3.5, "svc/a"),
		), VerdictViolation, "c1 deregistered at 1.100s"},
		{"no listing", hist(
			regAt("c1", "svc/a", 0, 0.1),
		), VerdictUnknown, "no listing of the registry was recorded"},
		{"no key recorded", hist(
			mk("c1", KindRegister, "svc", 0, 0.1, value("10.0.0.1:80")),
			listAt(3),
		), VerdictUnknown, "no registration recorded the key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := RunJudge(CheckerLeftBehind, tc.h, ttl)
			if res.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s: %s %v", res.Verdict, tc.want, res.Summary, messages(res))
			}
			text := res.Summary
			if len(res.Violations) > 0 {
				text = res.Violations[0].Message
				if len(res.Violations) != 1 {
					t.Errorf("%d violations, want the key once: %v", len(res.Violations), messages(res))
				}
			}
			if !strings.Contains(text, tc.msg) {
				t.Errorf("%q does not say %q", text, tc.msg)
			}
		})
	}
}
