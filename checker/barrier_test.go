package checker

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func round(r string) mod { return func(op *Operation) { op.Input.Value = r } }
func count(n int64) mod  { return func(op *Operation) { op.Input.Token = n } }

// Double barrier histories, the failing ones first.
var barrierCases = []struct {
	name    string
	h       History
	want    Verdict
	wantMsg string
}{
	{
		name: "an enter passed with two of three arrived",
		h: hist(
			mk("c1", KindEnter, "B", 0, 2, round("1"), count(3)),
			mk("c2", KindEnter, "B", 1, 2, round("1"), count(3)),
			mk("c3", KindEnter, "B", 3, 4, round("1"), count(3)),
		),
		want:    VerdictViolation,
		wantMsg: "c1 passed Enter of barrier B round 1 at 2.000s when 2 clients of 3 had called Enter",
	},
	{
		name: "a client that believes in a smaller count is judged by the group's",
		h: hist(
			mk("c1", KindEnter, "B", 0, 1.5, round("1"), count(3)),
			mk("c2", KindEnter, "B", 1, 1.5, round("1"), count(2)),
			mk("c3", KindEnter, "B", 3, 4, round("1"), count(3)),
		),
		want:    VerdictViolation,
		wantMsg: "when 2 clients of 3 had called Enter",
	},
	{
		name: "a leave passed while another was still inside",
		h: hist(
			mk("c1", KindEnter, "B", 0, 2, round("1"), count(2)),
			mk("c2", KindEnter, "B", 1, 2, round("1"), count(2)),
			mk("c1", KindLeave, "B", 3, 4, round("1")),
			mk("c2", KindLeave, "B", 5, 6, round("1")),
		),
		want:    VerdictViolation,
		wantMsg: "c1 passed Leave of barrier B round 1 at 4.000s while c2, inside since 2.000s, had not called Leave",
	},
	{
		name: "an enter without a round",
		h:    hist(mk("c1", KindEnter, "B", 0, 1, count(2))),
		want: VerdictInvalid, wantMsg: "enter without a round",
	},
	{
		name: "a count below one",
		h:    hist(mk("c1", KindEnter, "B", 0, 1, round("1"), count(0))),
		want: VerdictInvalid, wantMsg: "enter with count 0 (Input.Token): want 1 or more",
	},
	{
		name: "one round entered twice",
		h: hist(
			mk("c1", KindEnter, "B", 0, 1, round("1"), count(1)),
			mk("c1", KindEnter, "B", 2, 3, round("1"), count(1)),
		),
		want: VerdictInvalid, wantMsg: "c1 entered barrier B round 1 twice",
	},
	{
		name: "two rounds in step, concurrent arrivals and departures",
		h: hist(
			mk("c1", KindEnter, "B", 0, 2, round("1"), count(2)),
			mk("c2", KindEnter, "B", 1.5, 2, round("1"), count(2)),
			mk("c1", KindLeave, "B", 3, 4, round("1")),
			mk("c2", KindLeave, "B", 3.5, 4, round("1")),
			mk("c1", KindEnter, "B", 5, 6.5, round("2"), count(2)),
			mk("c2", KindEnter, "B", 6.5, 6.5, round("2"), count(2)),
			mk("c2", KindLeave, "B", 7, 8, round("2")),
			mk("c1", KindLeave, "B", 7.5, 8, round("2")),
		),
		want: VerdictOK,
	},
	{
		name: "an enter of unknown outcome counts as an arrival; its client is not waited for",
		h: hist(
			mk("c1", KindEnter, "B", 0, 2, round("1"), count(2)),
			mk("c2", KindEnter, "B", 1, never, round("1"), count(2)),
			mk("c1", KindLeave, "B", 3, 4, round("1")),
		),
		want: VerdictOK,
	},
}

func TestBarrierSafety(t *testing.T) {
	for _, tt := range barrierCases {
		t.Run(tt.name, func(t *testing.T) {
			res := BarrierSafety(tt.h, BarrierOptions{})
			if res.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %s %q", res.Verdict, tt.want, res.Summary, messages(res))
			}
			if tt.wantMsg != "" && !slices.ContainsFunc(messages(res), func(m string) bool { return strings.Contains(m, tt.wantMsg) }) {
				t.Errorf("no sentence contains %q; have %q", tt.wantMsg, messages(res))
			}
		})
	}
}

// genBarrierLoad: clients go through rounds of one barrier in step.
func genBarrierLoad(clients, rounds int) History {
	const step = time.Millisecond
	var ops []Operation
	t := time.Duration(0)
	for r := range rounds {
		name := fmt.Sprint(r)
		for c := range clients {
			ops = append(ops, Operation{Client: fmt.Sprintf("c%d", c), Kind: KindEnter, Key: "B",
				Input: Input{Value: name, Token: int64(clients)}, Call: t + time.Duration(c)*step/100, Return: t + 2*step, Outcome: OutcomeOK})
		}
		for c := range clients {
			ops = append(ops, Operation{Client: fmt.Sprintf("c%d", c), Kind: KindLeave, Key: "B",
				Input: Input{Value: name}, Call: t + 3*step + time.Duration(c)*step/100, Return: t + 4*step, Outcome: OutcomeOK})
		}
		t += 5 * step
	}
	for i := range ops {
		ops[i].ID = i
	}
	return History{Ops: ops}
}

// A 10-minute run of 10 clients going through a barrier every 50 ms makes
// 12,000 rounds; this judges 24,000 (480,000 operations).
func BenchmarkBarrierSafety(b *testing.B) {
	h := genBarrierLoad(10, 24000)
	b.Logf("%d operations", len(h.Ops))
	for b.Loop() {
		if res := BarrierSafety(h, BarrierOptions{}); res.Verdict != VerdictOK {
			b.Fatalf("%s: %s", res.Verdict, res.Summary)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/check")
}
