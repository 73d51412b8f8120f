package checker

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCallsApart checks where a history keeps its connections' calls: the
// recorder puts them in Calls, Validate refuses them anywhere else, and a
// version 7 history, which kept them in Ops, is read with them in Calls.
func TestCallsApart(t *testing.T) {
	rec := NewRecorder(NewClock())
	ctx := t.Context()
	rec.Invoke(ctx, "c1", KindLeaseGrant, "", Input{}).OK(ctx, Output{Lease: 7, TTL: time.Second}) //nolint:errcheck // completed once
	rec.Invoke(ctx, "c1", KindAcquire, "L", Input{}).OK(ctx, Output{Lease: 7, Token: 3})           //nolint:errcheck // completed once
	rec.Invoke(ctx, "c1", KindPut, "L/7", Input{}).OK(ctx, Output{Lease: 7})                       //nolint:errcheck // completed once
	h := rec.History()
	kinds := func(ops []Operation) (out []string) {
		for _, op := range ops {
			out = append(out, string(op.Kind)+"#"+string(rune('0'+op.ID)))
		}
		return out
	}
	if diff := cmp.Diff([]string{"acquire#1"}, kinds(h.Ops)); diff != "" {
		t.Errorf("Ops (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"lease-grant#0", "put#2"}, kinds(h.Calls)); diff != "" {
		t.Errorf("Calls (-want +got):\n%s", diff)
	}
	if err := h.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}

	// Written as version 7 wrote it, the calls among the operations.
	v7 := h
	v7.Ops = []Operation{h.Calls[0], h.Ops[0], h.Calls[1]}
	v7.Calls = nil
	var buf bytes.Buffer
	if err := v7.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(buf.String(), `"version":8`, `"version":7`, 1)
	read, err := ReadHistory(strings.NewReader(old))
	if err != nil {
		t.Fatalf("ReadHistory(version 7): %v", err)
	}
	if diff := cmp.Diff(kinds(h.Ops), kinds(read.Ops)); diff != "" {
		t.Errorf("version 7 read back: Ops (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(kinds(h.Calls), kinds(read.Calls)); diff != "" {
		t.Errorf("version 7 read back: Calls (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		name string
		h    func(History) History
		want string
	}{
		{"a put among the operations", func(h History) History { h.Ops = append(h.Ops, h.Calls[1]); h.Ops[1].ID = 9; return h },
			"a put is a call of a client's connection: it belongs in History.Calls, not in Ops"},
		{"an acquire among the calls", func(h History) History { h.Calls = append(h.Calls, h.Ops[0]); h.Calls[2].ID = 9; return h },
			"a acquire in History.Calls, which holds only the calls of clients' connections (lease-grant, revoke, put, delete-range)"},
		{"an ID in both lists", func(h History) History { h.Calls[1].ID = 1; return h }, "operation id 1 used twice"},
		{"an ID in both lists, out of order", func(h History) History { h.Calls[0].ID, h.Calls[1].ID = 1, 0; return h }, "operation id 1 used twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := tc.h(History{Version: h.Version, Meta: h.Meta, Ops: append([]Operation(nil), h.Ops...), Calls: append([]Operation(nil), h.Calls...)})
			err := bad.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestJudgesNotReadingCallsSkipThem checks that a judge that reads none of
// the connections' calls is not handed them: a malformed call does not
// make its verdict invalid, while it does the verdict of a judge that
// reads calls.
func TestJudgesNotReadingCallsSkipThem(t *testing.T) {
	h := hist(grantAt("c1", 7, time.Second, 0), putAt("c1", "L/7", 7, 0.1), mk("c1", KindAcquire, "L", 0.1, 0.2, withOut(Output{Lease: 7, Token: 1})))
	h.Calls[1].Client = "" // no client: invalid, for whoever reads it
	if got := RunJudge(CheckerMutualExclusion, h, JudgeOptions{}); got.Verdict == VerdictInvalid {
		t.Errorf("mutual-exclusion, which reads no call, is invalid: %s", got.Summary)
	}
	if got := RunJudge(CheckerKeysOnLeases, h, JudgeOptions{}); got.Verdict != VerdictInvalid {
		t.Errorf("keys-on-leases, which reads the calls, says %s (%s), want invalid", got.Verdict, got.Summary)
	}
}
