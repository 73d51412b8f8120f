package checker

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// rd is a read of key by client over [call, ret] seconds whose response
// header carried revision hdr.
func rd(client, key string, call, ret float64, hdr int64) Operation {
	return mk(client, KindRead, key, call, ret, func(op *Operation) { op.Output.Header = hdr })
}

func TestMonotonicReads(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    History
		want Verdict
		msg  string // in the first violation or the summary
	}{
		{"revisions only rise", hist(
			rd("c1", "k", 0, 1, 5), rd("c1", "k", 1, 2, 5), rd("c1", "j", 2, 3, 9),
		), VerdictOK, "3 reads by 1 client"},
		{"a lagging member answers after a fresh one", hist(
			rd("c1", "k", 0, 1, 9), rd("c1", "k", 2, 3, 7),
		), VerdictViolation, "c1 saw the revision go backwards: op 1 (read k at 2.000s) answered at revision 7, after op 0 (read k at 0.000s) had answered at 9"},
		{"back at the same instant, invoked later", hist(
			rd("c1", "k", 1, 1, 9), rd("c1", "k", 1, 1, 7),
		), VerdictViolation, "answered at revision 7, after op 0"},
		{"two clients owe each other nothing", hist(
			rd("c1", "k", 0, 1, 9), rd("c2", "k", 2, 3, 7),
		), VerdictOK, ""},
		{"overlapping reads owe each other nothing", hist(
			rd("c1", "k", 0, 2, 9), rd("c1", "k", 1, 3, 7),
		), VerdictOK, ""},
		{"a new process after a crash starts afresh", hist(
			rd("c1", "k", 0, 1, 9), crash("c1", 1.5), rd("c1", "k", 2, 3, 7),
		), VerdictOK, ""},
		{"failed reads and reads without a header are skipped", hist(
			rd("c1", "k", 0, 1, 9), mk("c1", KindRead, "k", 1, 2, failed), rd("c1", "k", 2, 3, 0), rd("c1", "k", 3, 4, 9),
		), VerdictOK, "2 reads"},
		{"no header recorded", hist(
			mk("c1", KindRead, "k", 0, 1), mk("c1", KindWrite, "k", 1, 2, rev(3)),
		), VerdictUnknown, "no read recorded the revision of its response header"},
		{"an invalid history", hist(
			rd("c1", "k", 2, 1, 9),
		), VerdictInvalid, "before its call"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := MonotonicReads(tc.h, MonotonicOptions{})
			if res.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s: %s", res.Verdict, tc.want, res.Summary)
			}
			text := res.Summary
			if len(res.Violations) > 0 {
				text = res.Violations[0].Message
				if res.Violations[0].Kind != ViolationRevisionBackwards {
					t.Errorf("kind %s, want %s", res.Violations[0].Kind, ViolationRevisionBackwards)
				}
				if len(res.Violations[0].Ops) != 2 {
					t.Errorf("the violation names %d operations, want the 2 reads", len(res.Violations[0].Ops))
				}
			}
			if res.Invalid != nil {
				text = res.Invalid.Message
			}
			if !strings.Contains(text, tc.msg) {
				t.Errorf("%q does not say %q", text, tc.msg)
			}
		})
	}
}

// genReads generates d of reads by clients, each read 1-9 ms long with
// 1-9 ms between them, its header the store's revision, which rises by
// one every millisecond.
func genReads(rng *rand.Rand, clients int, d time.Duration) History {
	var ops []Operation
	for c := range clients {
		name := "c" + string(rune('0'+c))
		for at := time.Duration(0); at < d; {
			call := at
			ret := call + time.Duration(1+rng.IntN(9))*time.Millisecond
			ops = append(ops, Operation{Client: name, Kind: KindRead, Key: "k", Call: call, Return: ret,
				Outcome: OutcomeOK, Output: Output{Header: int64(ret / time.Millisecond)}})
			at = ret + time.Duration(1+rng.IntN(9))*time.Millisecond
		}
	}
	return hist(ops...)
}

// A 10-minute history of 10 clients, a read every 10 ms each on average.
func BenchmarkMonotonicReads10Min10Clients(b *testing.B) {
	h := genReads(rand.New(rand.NewPCG(1, 2)), 10, 10*time.Minute)
	benchCheck(b, "reads", h, func(h History) Result { return MonotonicReads(h, MonotonicOptions{}) })
}
