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
		wantMsg: "c1 passed Enter of barrier B at 2.000s when 2 clients of 3 could be inside or arriving",
	},
	{
		name: "a client that believes in a smaller count is judged by the group's",
		h: hist(
			mk("c1", KindEnter, "B", 0, 1.5, round("1"), count(3)),
			mk("c2", KindEnter, "B", 1, 1.5, round("1"), count(2)),
			mk("c3", KindEnter, "B", 3, 4, round("1"), count(3)),
		),
		want:    VerdictViolation,
		wantMsg: "when 2 clients of 3 could be inside or arriving",
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
		wantMsg: "c1 passed Leave of barrier B at 4.000s while c2, inside since 2.000s, had not called Leave",
	},
	{
		name: "a client that crashed inside is no longer waited for",
		h: hist(
			mk("c1", KindEnter, "B", 0, 2, round("1"), count(2)),
			mk("c2", KindEnter, "B", 1, 2, round("1"), count(2)),
			crash("c2", 2.5),
			mk("c1", KindLeave, "B", 3, 5, round("1")),
		),
		want: VerdictOK,
	},
	{
		name: "a crash before the enter does not excuse a leave",
		h: hist(
			crash("c2", 0.5),
			mk("c1", KindEnter, "B", 0, 2, round("1"), count(2)),
			mk("c2", KindEnter, "B", 1, 2, round("1"), count(2)),
			mk("c1", KindLeave, "B", 3, 4, round("1")),
			mk("c2", KindLeave, "B", 5, 6, round("1")),
		),
		want:    VerdictViolation,
		wantMsg: "c1 passed Leave of barrier B at 4.000s while c2, inside since 2.000s, had not called Leave",
	},
	{
		name: "a count below one",
		h:    hist(mk("c1", KindEnter, "B", 0, 1, round("1"), count(0))),
		want: VerdictInvalid, wantMsg: "enter with count 0 (Input.Token): want 1 or more",
	},
	{
		name: "a client that left is no longer inside",
		h: hist(
			mk("c1", KindEnter, "B", 0, 1, round("1"), count(2)),
			mk("c2", KindEnter, "B", 0.5, 1, round("1"), count(2)),
			mk("c1", KindLeave, "B", 2, 3, round("1")),
			mk("c2", KindLeave, "B", 2, 3, round("1")),
			mk("c1", KindEnter, "B", 4, 5, round("2"), count(2)),
			mk("c2", KindEnter, "B", 6, 7, round("2"), count(2)),
		),
		want:    VerdictViolation,
		wantMsg: "c1 passed Enter of barrier B at 5.000s when 1 client of 2 could be inside or arriving",
	},
	{
		name: "an enter turned away from a full barrier is no arrival",
		h: hist(
			mk("c1", KindEnter, "B", 0, 2, round("1"), count(3)),
			mk("c2", KindEnter, "B", 0.5, 2, round("1"), count(3)),
			mk("c3", KindEnter, "B", 1, 1.5, round("1"), count(3), failed),
		),
		want:    VerdictViolation,
		wantMsg: "when 2 clients of 3 could be inside or arriving",
	},
	{
		name: "a client's retries count as one arrival",
		h: hist(
			mk("c1", KindEnter, "B", 0, never, round("1"), count(3)),
			mk("c1", KindEnter, "B", 1, never, round("1"), count(3)),
			mk("c2", KindEnter, "B", 2, 4, round("1"), count(3)),
			mk("c1", KindEnter, "B", 3, 4, round("1"), count(3)),
			mk("c3", KindEnter, "B", 5, 6, round("1"), count(3)),
		),
		want:    VerdictViolation,
		wantMsg: "c2 passed Enter of barrier B at 4.000s when 2 clients of 3 could be inside or arriving",
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
		name: "an enter tried again after a failure",
		h: hist(
			mk("c1", KindEnter, "B", 0, never, round("1"), count(2)),
			mk("c2", KindEnter, "B", 1, 3, round("1"), count(2)),
			mk("c1", KindEnter, "B", 2, 3, round("1"), count(2)),
			mk("c1", KindLeave, "B", 4, never, round("1")),
			mk("c2", KindLeave, "B", 4.5, 6, round("1")),
			mk("c1", KindLeave, "B", 5, 6, round("1")),
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
// 12,000 rounds: 240,000 operations, the clients entering and leaving at
// once.
func BenchmarkBarrierSafety(b *testing.B) {
	h := genBarrierLoad(10, 12000)
	benchCheck(b, "ops", h, func(h History) Result { return BarrierSafety(h, BarrierOptions{}) })
}

// A 10-minute run of one holder and 9 waiters at a plain barrier held for
// 40 ms and down for 10 ms: 12,000 holds, as many lifts, 108,000 waits.
func BenchmarkPlainBarrierSafety(b *testing.B) {
	h := genPlainBarrierLoad(9, 10*time.Minute, 40*time.Millisecond, 10*time.Millisecond)
	benchCheck(b, "ops", h, func(h History) Result { return BarrierSafety(h, BarrierOptions{}) })
}
