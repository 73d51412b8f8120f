package checker

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func cas(expect, swap string) mod {
	return func(op *Operation) { op.Input.Expect, op.Input.Value = expect, swap }
}

func swapped(op *Operation) { op.Output.Succeeded = true }

func missing(op *Operation) { op.Output.Missing = true }

func TestRegisterLinearizable(t *testing.T) {
	tests := []struct {
		name    string
		h       History
		want    Verdict
		wantMsg string
	}{
		{
			name: "write then read",
			h: hist(
				mk("c1", KindRead, "x", 0, 1, missing),
				mk("c1", KindWrite, "x", 1, 2, value("1")),
				mk("c2", KindRead, "x", 3, 4, read("1")),
			),
			want: VerdictOK,
		},
		{
			name: "concurrent reads may see either value",
			h: hist(
				mk("c1", KindWrite, "x", 0, 1, value("1")),
				mk("c1", KindWrite, "x", 2, 5, value("2")),
				mk("c2", KindRead, "x", 3, 4, read("2")),
				mk("c3", KindRead, "x", 4.5, 6, read("2")),
			),
			want: VerdictOK,
		},
		{
			name: "a stale read",
			h: hist(
				mk("c1", KindWrite, "x", 0, 1, value("1")),
				mk("c1", KindWrite, "x", 2, 3, value("2")),
				mk("c2", KindRead, "x", 4, 5, read("1")),
			),
			want:    VerdictViolation,
			wantMsg: `register x is not linearizable; no order of its operations explains op 2 (c2 read x → value="1" [4.000s, 5.000s] ok)`,
		},
		{
			name: "a read of a missing key after a read saw the write",
			h: hist(
				mk("c1", KindWrite, "x", 0, 10, value("1")),
				mk("c2", KindRead, "x", 1, 2, read("1")),
				mk("c3", KindRead, "x", 3, 4, missing),
			),
			want: VerdictViolation,
		},
		{
			name: "a write of unknown outcome that took effect late",
			h: hist(
				mk("c1", KindWrite, "x", 0, never, value("1")),
				mk("c2", KindRead, "x", 5, 6, missing),
				mk("c2", KindRead, "x", 7, 8, read("1")),
			),
			want: VerdictOK,
		},
		{
			name: "a write of unknown outcome that never took effect",
			h: hist(
				mk("c1", KindWrite, "x", 0, never, value("1")),
				mk("c2", KindRead, "x", 5, 6, missing),
			),
			want: VerdictOK,
		},
		{
			name: "a failed write did not take effect",
			h: hist(
				mk("c1", KindWrite, "x", 0, 1, value("1"), failed),
				mk("c2", KindRead, "x", 5, 6, read("1")),
			),
			want: VerdictViolation,
		},
		{
			name: "compare-and-set",
			h: hist(
				mk("c1", KindWrite, "x", 0, 1, value("1")),
				mk("c1", KindCAS, "x", 2, 3, cas("1", "2"), swapped),
				mk("c2", KindCAS, "x", 4, 5, cas("1", "3")),
				mk("c2", KindCAS, "x", 6, 7, withIn(Input{ExpectMissing: true, Value: "4"})),
				mk("c3", KindRead, "x", 8, 9, read("2")),
			),
			want: VerdictOK,
		},
		{
			name: "a failed comparison is an observation",
			h: hist(
				mk("c1", KindWrite, "x", 0, 1, value("1")),
				mk("c2", KindCAS, "x", 2, 3, cas("1", "2")),
			),
			want: VerdictViolation,
		},
		{
			name: "a cas on a missing key",
			h: hist(
				mk("c1", KindCAS, "x", 0, 1, withIn(Input{ExpectMissing: true, Value: "1"}), swapped),
				mk("c2", KindDelete, "x", 2, 3),
				mk("c2", KindRead, "x", 4, 5, missing),
			),
			want: VerdictOK,
		},
		{
			name: "revisions agree",
			h: hist(
				mk("c1", KindWrite, "x", 0, 1, value("1"), rev(5)),
				mk("c1", KindWrite, "x", 2, 3, value("1"), rev(7)),
				mk("c2", KindRead, "x", 4, 5, read("1"), rev(7)),
			),
			want: VerdictOK,
		},
		{
			name: "a read of the same value from an older revision",
			h: hist(
				mk("c1", KindWrite, "x", 0, 1, value("1"), rev(5)),
				mk("c1", KindWrite, "x", 2, 3, value("1"), rev(7)),
				mk("c2", KindRead, "x", 4, 5, read("1"), rev(5)),
			),
			want: VerdictViolation,
		},
		{
			name: "revisions that go backwards",
			h: hist(
				mk("c1", KindWrite, "x", 0, 1, value("1"), rev(7)),
				mk("c1", KindWrite, "x", 2, 3, value("2"), rev(5)),
			),
			want: VerdictViolation,
		},
		{
			name: "keys are independent",
			h: hist(
				mk("c1", KindWrite, "x", 0, 1, value("1")),
				mk("c1", KindWrite, "y", 0, 1, value("2")),
				mk("c2", KindRead, "x", 2, 3, read("1")),
				mk("c2", KindRead, "y", 2, 3, read("2")),
			),
			want: VerdictOK,
		},
		{
			name:    "a read without a key",
			h:       hist(mk("c1", KindRead, "", 0, 1, missing)),
			want:    VerdictInvalid,
			wantMsg: "read without a key",
		},
		{
			name:    "a cas expecting a value and a missing key",
			h:       hist(mk("c1", KindCAS, "x", 0, 1, withIn(Input{Expect: "1", ExpectMissing: true}))),
			want:    VerdictInvalid,
			wantMsg: "cas expects both",
		},
		{
			name: "nothing to judge",
			h:    hist(mk("c1", KindAcquire, "/jobs", 0, 1)),
			want: VerdictUnknown,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkResult(t, RegisterLinearizable(tc.h, LinOptions{}).Result, tc.want, tc.wantMsg)
		})
	}
}

// hardRegisterHistory is not linearizable (the last read sees a value
// nobody wrote), and has n concurrent writes for the search to try.
func hardRegisterHistory(n int) History {
	var ops []Operation
	for i := range n {
		ops = append(ops, mk("w"+string(rune('a'+i)), KindWrite, "x", 0, 10, value(string(rune('a'+i)))))
	}
	ops = append(ops, mk("r", KindRead, "x", 11, 12, read("nobody")))
	return hist(ops...)
}

func TestRegisterLinearizableTimeoutIsUnknown(t *testing.T) {
	res := RegisterLinearizable(hardRegisterHistory(20), LinOptions{Timeout: time.Millisecond})
	checkResult(t, res.Result, VerdictUnknown, "")
}

func TestRegisterLinearizableVisualize(t *testing.T) {
	cases := jepsenCases(t)
	h := readJepsen(t, cases[0].path)
	h.Faults = []FaultEvent{healed("kill(leader)", 0.01, 0.02)}
	res := RegisterLinearizable(h, LinOptions{})
	checkResult(t, res.Result, VerdictViolation, "")
	var buf bytes.Buffer
	if err := res.Visualize(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<html", "kill(leader)", "violation", "write("} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("visualization lacks %q", want)
		}
	}
}
