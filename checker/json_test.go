package checker

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fullHistory uses every field of the format.
func fullHistory() History {
	h := hist(
		mk("c1", KindAcquire, "/jobs", 0, 1, granted(7)),
		mk("c1", KindGuardedWrite, "/jobs", 1, 2, withIn(Input{Value: "v", Token: 7})),
		mk("c2", KindCAS, "x", 1, 2, withIn(Input{Expect: "a", Value: "b"}), withOut(Output{Succeeded: true, Revision: 9})),
		mk("c2", KindCAS, "x", 3, never, withIn(Input{ExpectMissing: true, Value: "c"}), gaveUp(4)),
		mk("c3", KindSetRead, "/jobs", 2, 3, withOut(Output{Values: []string{"1", "2"}, Count: 2})),
		mk("r1", KindResolve, "/svc", 2, 3, endpoints("a:1", "b:2")),
		mk("w1", KindWatch, "/p/", 0, 5, withIn(Input{Revision: 3}), withOut(Output{CompactRevision: 2}), failed),
		mk("w1", KindWatchEvent, "/p/", 4, 4, withOut(Output{Key: "/p/a", Value: "1", Revision: 12})),
		mk("o1", KindLeaderObserved, "/e", 4, 4.5, withOut(Output{Missing: true})),
		mk("c4", "x-custom", "k", 5, 6),
		mk("p1", KindEnqueue, "Q", 5, 6, withIn(Input{Value: "job", Priority: 2})),
		mk("c5", KindDequeue, "Q", 6, 7, withOut(Output{Empty: true})),
	)
	h.Ops[6].Error = "mvcc: required revision has been compacted"
	for i := range h.Ops {
		h.Ops[i].Run = "run-7"
	}
	h.Version = HistoryVersion
	h.Meta = Meta{RunID: "run-7", Seed: 1<<63 + 3, Scenario: "locks under partition", SessionTTL: 5 * time.Second}
	h.Faults = []FaultEvent{
		{Name: "partition(minority)", Targets: []string{"m2", "m3"}, Start: at(1), End: at(2), Healed: true, Detail: "blackhole"},
		{Name: "kill(leader)", Start: at(3), Err: "heal failed: member m1 did not restart"},
	}
	h.End = at(7)
	return h
}

func TestHistoryJSONRoundTrip(t *testing.T) {
	h := fullHistory()
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := h.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"return":9223372036854775807`) {
		t.Errorf("an unknown outcome's return is not written as +inf (math.MaxInt64):\n%s", buf.String())
	}
	got, err := ReadHistory(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(h, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestReadHistoryRejects(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr string
	}{
		{name: "not JSON", json: "{", wantErr: "unexpected EOF"},
		{name: "a newer version", json: `{"version":9,"ops":[]}`, wantErr: "version 9, want 1 to 8"},
		{name: "no version", json: `{"ops":[]}`, wantErr: "version 0, want 1 to 8"},
		{name: "an unknown field", json: `{"version":1,"ops":[],"extra":1}`, wantErr: `unknown field "extra"`},
		{name: "a misspelt operation field", json: `{"version":1,"ops":[{"id":0,"clinet":"c1"}]}`, wantErr: `unknown field "clinet"`},
		{name: "data after the history", json: `{"version":1,"ops":[]} {}`, wantErr: "data after the history"},
		{name: "a time that does not fit", json: `{"version":1,"ops":[{"id":0,"call":1e30}]}`, wantErr: "cannot unmarshal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadHistory(strings.NewReader(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ReadHistory(%s) = %v, want an error containing %q", tc.json, err, tc.wantErr)
			}
		})
	}
}

func TestResultJSONRoundTrip(t *testing.T) {
	res := MutualExclusion(lockCases[9].h, MutexOptions{})
	res.Distributions = map[string]Distribution{"d": newDistribution([]time.Duration{1, 2, 3})}
	all := Combine("locks", res, Fencing(hist(), FencingOptions{}), MutualExclusion(hist(mk("c1", KindRelease, "/x", 0, 1)), MutexOptions{}))
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"verdict":"invalid"`, `"verdict":"violation"`, `"verdict":"unknown"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
	var got Result
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all, got, cmpEmptyMaps); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestVerdictText(t *testing.T) {
	tests := []struct {
		name string
		v    Verdict
		text string
	}{
		{name: "zero is unknown", v: Verdict(0), text: "unknown"},
		{name: "ok", v: VerdictOK, text: "ok"},
		{name: "violation", v: VerdictViolation, text: "violation"},
		{name: "invalid", v: VerdictInvalid, text: "invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.v.MarshalText()
			if err != nil || string(b) != tc.text || tc.v.String() != tc.text {
				t.Errorf("MarshalText = %q, %v; String = %q; want %q", b, err, tc.v.String(), tc.text)
			}
			var back Verdict
			if err := back.UnmarshalText(b); err != nil || back != tc.v {
				t.Errorf("UnmarshalText(%q) = %v, %v", b, back, err)
			}
		})
	}
	if _, err := Verdict(9).MarshalText(); err == nil {
		t.Error("MarshalText of an undefined verdict did not fail")
	}
	var v Verdict
	if err := v.UnmarshalText([]byte("fine")); err == nil {
		t.Error(`UnmarshalText("fine") did not fail`)
	}
}

func TestCombine(t *testing.T) {
	ok := Result{Checker: "a", Verdict: VerdictOK}
	unknown := Result{Checker: "b", Verdict: VerdictUnknown, Summary: "timed out"}
	violation := Result{Checker: "c", Verdict: VerdictViolation, Violations: []Violation{{Message: "two holders"}}}
	invalid := Result{Checker: "d", Verdict: VerdictInvalid, Invalid: &Violation{Message: "op 3: no client"}}
	tests := []struct {
		name    string
		results []Result
		want    Verdict
		summary string
	}{
		{name: "nothing checked is unknown", want: VerdictUnknown, summary: "nothing was checked"},
		{name: "all ok", results: []Result{ok, ok}, want: VerdictOK, summary: "2 checks: 2 ok"},
		{name: "unknown beats ok", results: []Result{ok, unknown}, want: VerdictUnknown, summary: "2 checks: 1 ok, 1 unknown"},
		{name: "violation beats unknown", results: []Result{unknown, violation, ok}, want: VerdictViolation, summary: "3 checks: 1 ok, 1 violation, 1 unknown"},
		{name: "invalid beats violation", results: []Result{violation, invalid}, want: VerdictInvalid, summary: "2 checks: 1 violation, 1 invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Combine("all", tc.results...)
			if got.Verdict != tc.want || got.Summary != tc.summary || len(got.Parts) != len(tc.results) {
				t.Errorf("Combine = %s %q with %d parts, want %s %q", got.Verdict, got.Summary, len(got.Parts), tc.want, tc.summary)
			}
			if (got.Err() == nil) != (tc.want == VerdictOK) {
				t.Errorf("Err() = %v for verdict %s", got.Err(), got.Verdict)
			}
		})
	}
	err := Combine("all", violation, invalid, unknown).Err()
	for _, want := range []string{"checker: c: two holders", "checker: d: invalid history: op 3: no client", "checker: b: unknown: timed out"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Err() = %v, want it to contain %q", err, want)
		}
	}
}

// TestReadHistoryUpgrades: a history of version 2, where an enqueue's
// priority was its Input.Token and a drain's empty queue its dequeue's
// Output.Missing, reads back with both where version 3 keeps them, judged
// as it was; the same fields of other kinds, and of a version 3 history,
// stay put.
func TestReadHistoryUpgrades(t *testing.T) {
	const v2 = `{"version":2,"seed":"1","ops":[
{"id":0,"client":"p1","kind":"enqueue","key":"Q","input":{"value":"low","token":1},"call":0,"return":1000000000,"outcome":"ok"},
{"id":1,"client":"p1","kind":"enqueue","key":"Q","input":{"value":"high"},"call":0,"return":1000000000,"outcome":"ok"},
{"id":2,"client":"c1","kind":"dequeue","key":"Q","output":{"value":"low"},"call":2000000000,"return":3000000000,"outcome":"ok"},
{"id":3,"client":"c1","kind":"dequeue","key":"Q","output":{"value":"high"},"call":4000000000,"return":5000000000,"outcome":"ok"},
{"id":4,"client":"c1","kind":"dequeue","key":"Q","output":{"missing":true},"call":6000000000,"return":7000000000,"outcome":"ok"},
{"id":5,"client":"c2","kind":"guarded-write","key":"L","input":{"value":"v","token":7},"call":0,"return":1000000000,"outcome":"ok"},
{"id":6,"client":"c2","kind":"read","key":"k","output":{"missing":true},"call":0,"return":1000000000,"outcome":"ok"}
]}`
	h, err := ReadHistory(strings.NewReader(v2))
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != HistoryVersion {
		t.Errorf("version %d after reading, want %d", h.Version, HistoryVersion)
	}
	want := []struct {
		in  Input
		out Output
	}{
		{Input{Value: "low", Priority: 1}, Output{}},
		{Input{Value: "high"}, Output{}},
		{Input{}, Output{Value: "low"}},
		{Input{}, Output{Value: "high"}},
		{Input{}, Output{Empty: true}},
		{Input{Value: "v", Token: 7}, Output{}},
		{Input{}, Output{Missing: true}},
	}
	for i, w := range want {
		if diff := cmp.Diff(w.in, h.Ops[i].Input); diff != "" {
			t.Errorf("%s: input (-want +got):\n%s", h.Ops[i], diff)
		}
		if diff := cmp.Diff(w.out, h.Ops[i].Output); diff != "" {
			t.Errorf("%s: output (-want +got):\n%s", h.Ops[i], diff)
		}
	}
	// Judged as it was written: "low" (priority 1) was served while
	// "high" (priority 0) waited, and the drain saw the queue empty.
	res := QueueDelivery(h, QueueOptions{})
	if res.Verdict != VerdictViolation || len(res.Violations) == 0 || res.Violations[0].Kind != ViolationPriorityInversion {
		t.Errorf("QueueDelivery of the upgraded history: %s %q, want a priority inversion", res.Verdict, messages(res))
	}

	// A version 3 history means what it says: an enqueue's token is no
	// priority there.
	v3 := strings.Replace(v2, `{"version":2`, `{"version":3`, 1)
	h, err = ReadHistory(strings.NewReader(v3))
	if err != nil {
		t.Fatal(err)
	}
	if in := h.Ops[0].Input; in.Priority != 0 || in.Token != 1 {
		t.Errorf("version 3 enqueue read as %+v, want its token left as it is", in)
	}
}
