package checker

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// tx builds a txn of client over [call, ret] seconds that read reads and
// wrote writes, committed at rev (0: ok but not committed).
func tx(client string, call, ret float64, rev int64, reads []KeyValue, writes ...KeyValue) Operation {
	return mk(client, KindTxn, "", call, ret, func(op *Operation) {
		op.Input.Writes = writes
		op.Output.Reads = reads
		op.Output.Succeeded = rev != 0
		op.Output.Revision = rev
	})
}

// r is a read of key: value at rev, or missing when value is "".
func r(key, value string, rev int64) KeyValue {
	if value == "" {
		return KeyValue{Key: key, Missing: true}
	}
	return KeyValue{Key: key, Value: value, Revision: rev}
}

// w is a write of value to key.
func w(key, value string) KeyValue { return KeyValue{Key: key, Value: value} }

func rs(kvs ...KeyValue) []KeyValue { return kvs }

func TestSerializable(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    History
		want Verdict
		msg  string
	}{
		{"serial transfers", hist(
			tx("c1", 0, 1, 2, rs(r("a", "", 0), r("b", "", 0)), w("a", "-5 t1"), w("b", "5 t1")),
			tx("c2", 2, 3, 3, rs(r("a", "-5 t1", 2), r("b", "5 t1", 2)), w("a", "-8 t2"), w("b", "8 t2")),
			tx("c3", 4, 5, 0, rs(r("a", "-8 t2", 3), r("b", "8 t2", 3))),
		), VerdictOK, ""},
		{"lost update", hist( // both read a empty, both write it: G-single
			tx("c1", 0, 1, 2, rs(r("a", "", 0)), w("a", "5 t1")),
			tx("c2", 0, 1, 3, rs(r("a", "", 0)), w("a", "7 t2")),
		), VerdictViolation, "G-single (a lost update: op 1 (c2) wrote a over op 0 (c1)'s write to it, having read a before op 0 wrote it, so op 0's update is lost)"},
		{"lost update between two transfers", hist( // each reads both, writes both: c2 read a before t1 wrote it, and wrote b after
			tx("c1", 0, 1, 2, rs(r("a", "", 0), r("b", "", 0)), w("a", "-5 t1"), w("b", "5 t1")),
			tx("c2", 0, 1, 3, rs(r("a", "", 0), r("b", "", 0)), w("a", "-3 t2"), w("b", "3 t2")),
		), VerdictViolation, "a lost update: op 1 (c2) wrote"},
		{"lost update of two writes", hist( // c4 read a before c1 and c3 wrote it, and wrote it after both
			tx("c1", 0, 1, 2, rs(r("a", "", 0)), w("a", "1 t1")),
			tx("c3", 1, 2, 3, rs(r("a", "1 t1", 2)), w("a", "2 t3")),
			tx("c4", 0, 3, 4, rs(r("a", "", 0)), w("a", "5 t4")),
		), VerdictViolation, "G-single (a lost update: op 2 (c4) wrote a over op 0 (c1)'s write to it and 1 other write after it, having read a before op 0 wrote it, so op 0's update is lost) among 3 txns"},
		{"read skew", hist( // c3 sees a before t1 and b after it
			tx("c1", 0, 1, 2, rs(r("a", "", 0), r("b", "", 0)), w("a", "-5 t1"), w("b", "5 t1")),
			tx("c3", 0, 2, 0, rs(r("a", "", 0), r("b", "5 t1", 2))),
		), VerdictViolation, "G-single (read skew)"},
		{"write skew", hist( // each reads both and writes the other's
			tx("c1", 0, 1, 2, rs(r("a", "", 0), r("b", "", 0)), w("a", "1 t1")),
			tx("c2", 0, 1, 3, rs(r("a", "", 0), r("b", "", 0)), w("b", "1 t2")),
		), VerdictViolation, "G2"},
		{"aborted read", hist(
			mk("c1", KindTxn, "", 0, 1, failed, withIn(Input{Writes: rs(w("a", "1 t1"))})),
			tx("c2", 2, 3, 4, rs(r("a", "1 t1", 2)), w("a", "2 t2")),
		), VerdictViolation, "G1a"},
		{"value nobody wrote", hist(
			tx("c2", 2, 3, 4, rs(r("a", "1 t9", 2)), w("a", "2 t2")),
		), VerdictViolation, "no transaction wrote"},
		{"unknown write read later", hist(
			mk("c1", KindTxn, "", 0, never, withIn(Input{Writes: rs(w("a", "1 t1"))})),
			tx("c2", 2, 3, 6, rs(r("a", "1 t1", 5)), w("a", "2 t2")),
		), VerdictOK, ""},
		{"nothing committed", hist(
			tx("c1", 0, 1, 0, rs(r("a", "", 0))),
		), VerdictUnknown, "no transaction committed"},
		{"a value written twice is told apart by its revision", hist( // plain balances: each read names its version by revision
			tx("c1", 0, 1, 2, rs(r("a", "", 0)), w("a", "1")),
			tx("c2", 2, 3, 3, rs(r("a", "1", 2)), w("a", "0")),
			tx("c3", 4, 5, 4, rs(r("a", "0", 3)), w("a", "1")),
			tx("c4", 6, 7, 0, rs(r("a", "1", 4))),
		), VerdictOK, ""},
		{"lost update of plain balances", hist( // both read a=1@2 and write 0: the same value, told apart by revision
			tx("c1", 0, 1, 2, rs(r("a", "", 0)), w("a", "1")),
			tx("c2", 2, 3, 3, rs(r("a", "1", 2)), w("a", "0")),
			tx("c3", 2, 3, 4, rs(r("a", "1", 2)), w("a", "0")),
		), VerdictViolation, "a lost update: op 2 (c3) wrote a over op 1 (c2)'s write to it"},
		{"a plain balance read at a revision its writer did not write", hist(
			tx("c1", 0, 1, 2, rs(r("a", "", 0)), w("a", "1")),
			tx("c2", 2, 3, 0, rs(r("a", "0", 2))),
		), VerdictViolation, `wrote "1" to a at that revision`},
		{"writes of their own revisions", hist( // a transfer that commits its two writes apart: an audit between them sees the debit only
			mk("c1", KindTxn, "", 0, 3, withIn(Input{Writes: rs(KeyValue{Key: "a", Value: "-5", Revision: 2}, KeyValue{Key: "b", Value: "5", Revision: 4})}),
				withOut(Output{Succeeded: true, Revision: 4, Reads: rs(r("a", "", 0), r("b", "", 0))})),
			tx("c3", 1, 2, 0, rs(r("a", "-5", 2), r("b", "", 0))),
		), VerdictViolation, "G-single (read skew)"},
		{"a read any of two unknown writes may explain", hist(
			mk("c1", KindTxn, "", 0, never, withIn(Input{Writes: rs(w("a", "1"))})),
			mk("c2", KindTxn, "", 0, never, withIn(Input{Writes: rs(w("a", "1"))})),
			tx("c3", 2, 3, 6, rs(r("a", "1", 5)), w("a", "2")),
		), VerdictUnknown, "1 read of a value that several writes of unknown outcome wrote"},
		{"the other key of the same revision tells two unknown writes apart", hist( // both wrote a=1; only c1 wrote b=-1, and b=-1 was read at a's revision
			mk("c1", KindTxn, "", 0, never, withIn(Input{Writes: rs(w("a", "1"), w("b", "-1"))})),
			mk("c2", KindTxn, "", 0, never, withIn(Input{Writes: rs(w("a", "1"), w("b", "-9"))})),
			tx("c3", 2, 3, 6, rs(r("a", "1", 5)), w("a", "2")),
			tx("c4", 2, 3, 7, rs(r("b", "-1", 5)), w("b", "0")),
		), VerdictOK, ""},
		{"an unknown write called after its revision was seen is not the one read", hist(
			mk("c1", KindTxn, "", 0, never, withIn(Input{Writes: rs(w("a", "1"))})),
			tx("c3", 1, 2, 6, rs(r("a", "1", 5)), w("a", "2")),
			mk("c2", KindTxn, "", 3, never, withIn(Input{Writes: rs(w("a", "1"))})),
		), VerdictOK, ""},
		{"a failed write with a revision", hist(
			mk("c1", KindTxn, "", 0, 1, failed, withIn(Input{Writes: rs(KeyValue{Key: "a", Value: "1", Revision: 2})})),
			tx("c2", 0, 1, 3, nil, w("a", "2")),
		), VerdictInvalid, "failed txn wrote a at revision 2"},
		{"read both missing and valued", hist(
			tx("c1", 0, 1, 2, rs(KeyValue{Key: "a", Missing: true, Value: "x"})),
		), VerdictInvalid, "both missing"},
		{"committed writes without a revision", hist(
			mk("c1", KindTxn, "", 0, 1, withIn(Input{Writes: rs(w("a", "1"))}), withOut(Output{Succeeded: true})),
		), VerdictInvalid, "no commit revision"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkTxnResult(t, Serializable(tc.h, SerializableOptions{}), tc.want, tc.msg)
		})
	}
}

func TestBankTotal(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    History
		want Verdict
		msg  string
	}{
		{"conserved", hist(
			tx("c1", 0, 1, 2, rs(r("a", "", 0), r("b", "", 0)), w("a", "-5 t1"), w("b", "5 t1")),
			tx("c3", 2, 3, 0, rs(r("a", "-5 t1", 2), r("b", "5 t1", 2))),
		), VerdictOK, ""},
		{"lost update", hist( // t2 overwrote t1's debit of a
			tx("c1", 0, 1, 2, rs(r("a", "", 0), r("b", "", 0)), w("a", "-5 t1"), w("b", "5 t1")),
			tx("c2", 0, 1, 3, rs(r("a", "", 0), r("c", "", 0)), w("a", "-3 t2"), w("c", "3 t2")),
			tx("c3", 2, 3, 0, rs(r("a", "-3 t2", 3), r("b", "5 t1", 2), r("c", "3 t2", 3))),
		), VerdictViolation, "sum to 5, want 0"},
		{"no audit", hist(
			tx("c1", 0, 1, 2, rs(r("a", "", 0), r("b", "", 0)), w("a", "-5 t1"), w("b", "5 t1")),
			tx("c2", 0, 1, 3, rs(r("a", "-5 t1", 2), r("c", "", 0)), w("a", "-8 t2"), w("c", "3 t2")),
		), VerdictUnknown, "no transaction read every account"},
		{"balance not a number", hist(
			tx("c3", 2, 3, 0, rs(r("a", "lots", 2))),
		), VerdictInvalid, "not an integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkTxnResult(t, BankTotal(tc.h, BankOptions{}), tc.want, tc.msg)
		})
	}
}

// checkTxnResult is checkResult, reading an undecided verdict's reason in
// its summary.
func checkTxnResult(t *testing.T, res Result, want Verdict, msg string) {
	t.Helper()
	if want == VerdictUnknown {
		if res.Verdict != want || !strings.Contains(res.Summary, msg) {
			t.Errorf("verdict %s (%s), want %s saying %q", res.Verdict, res.Summary, want, msg)
		}
		return
	}
	checkResult(t, res, want, msg)
}

// genBank generates a serial bank history: clients transfer between
// accounts and audit them, each txn on its own interval of the clock,
// every committed txn reading the latest versions.
func genBank(rng *rand.Rand, clients, accounts int, d time.Duration) History {
	keys := make([]string, accounts)
	cur := make([]KeyValue, accounts)
	for i := range keys {
		keys[i] = fmt.Sprintf("bank/%d", i)
		cur[i] = KeyValue{Key: keys[i], Missing: true}
	}
	bal := make([]int64, accounts)
	var ops []Operation
	rev := int64(1)
	for now, n := time.Duration(0), 0; now < d; now, n = now+time.Duration(rng.IntN(120))*time.Millisecond/time.Duration(clients), n+1 {
		c := fmt.Sprintf("c%d", 1+n%clients)
		op := Operation{Client: c, Kind: KindTxn, Call: now, Return: now + time.Millisecond, Outcome: OutcomeOK}
		if rng.IntN(10) == 0 {
			op.Output.Reads = append([]KeyValue(nil), cur...)
			ops = append(ops, op)
			continue
		}
		a, b := rng.IntN(accounts), rng.IntN(accounts-1)
		if b >= a {
			b++
		}
		amt := int64(1 + rng.IntN(20))
		op.Output.Reads = []KeyValue{cur[a], cur[b]}
		rev++
		bal[a], bal[b] = bal[a]-amt, bal[b]+amt
		id := fmt.Sprintf("%s-%d", c, n)
		cur[a] = KeyValue{Key: keys[a], Value: fmt.Sprintf("%d %s", bal[a], id), Revision: rev}
		cur[b] = KeyValue{Key: keys[b], Value: fmt.Sprintf("%d %s", bal[b], id), Revision: rev}
		op.Input.Writes = []KeyValue{{Key: keys[a], Value: cur[a].Value}, {Key: keys[b], Value: cur[b].Value}}
		op.Output.Succeeded, op.Output.Revision = true, rev
		ops = append(ops, op)
	}
	return hist(ops...)
}
