package checker

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// Plain barrier histories, the failing ones first. The bound is 3 s.
var plainBarrierCases = []struct {
	name    string
	h       History
	want    Verdict
	wantMsg string
}{
	{
		name: "a wait passed a barrier held throughout",
		h: hist(
			mk("c1", KindHold, "B", 0, 1),
			mk("c2", KindWait, "B", 2, 3),
			mk("c1", KindLift, "B", 5, 6),
		),
		want: VerdictViolation,
		wantMsg: "c2's Wait at barrier B, called at 2.000s, returned at 3.000s while the barrier was up throughout: " +
			"c1's Hold returned at 1.000s and no Release could have taken it down before the wait returned",
	},
	{
		name: "a wait passed the barrier held again since its last lift",
		h: hist(
			mk("c1", KindHold, "B", 0, 1),
			mk("c1", KindLift, "B", 2, 3),
			mk("c1", KindHold, "B", 4, 5),
			mk("c2", KindWait, "B", 6, 6.5),
		),
		want: VerdictViolation, wantMsg: "c1's Hold returned at 5.000s",
	},
	{
		name: "a waiter slept through the release",
		h: hist(
			mk("c1", KindHold, "B", 0, 1),
			mk("c2", KindWait, "B", 1.5, 9),
			mk("c1", KindLift, "B", 2, 2.5),
			mk("c1", KindHold, "B", 8, 8.5),
		),
		want: VerdictViolation,
		wantMsg: "c2's Wait at barrier B, called at 1.500s, was still waiting at 5.500s, 3s after 2.500s, with the barrier down all along: " +
			"c1's Release returned at 2.500s and the next Hold was called at 8.000s",
	},
	{
		name: "a waiter that never returned, the barrier down for good",
		h: hist(
			mk("c1", KindHold, "B", 0, 1),
			mk("c2", KindWait, "B", 1.5, never, gaveUp(7)),
			mk("c1", KindLift, "B", 2, 2.5),
		),
		want: VerdictViolation, wantMsg: "no Hold came after",
	},
	{
		name: "stuck after the last heal",
		h: withFaults(hist(
			mk("c1", KindHold, "B", 0, 1),
			mk("c2", KindWait, "B", 1.5, 10),
			mk("c1", KindLift, "B", 2, 2.5),
		), healed("isolate(c2)", 1, 5)),
		want: VerdictViolation, wantMsg: "was still waiting at 8.000s, 3s after 5.000s",
	},
	{
		name: "a slow wake-up within the bound",
		h: hist(
			mk("c1", KindHold, "B", 0, 1),
			mk("c2", KindWait, "B", 1.5, 5),
			mk("c1", KindLift, "B", 2, 2.5),
		),
		want: VerdictOK,
	},
	{
		name: "a wait stuck during a fault, through within the bound of its heal",
		h: withFaults(hist(
			mk("c1", KindHold, "B", 0, 1),
			mk("c2", KindWait, "B", 1.5, 9),
			mk("c1", KindLift, "B", 2, 2.5),
		), healed("isolate(c2)", 1, 7)),
		want: VerdictOK,
	},
	{
		name: "a wait through a lift that came in time",
		h: hist(
			mk("c1", KindHold, "B", 0, 1),
			mk("c2", KindWait, "B", 2, 4),
			mk("c1", KindLift, "B", 3, 3.5),
			mk("c3", KindWait, "B", 3.2, 3.4),
		),
		want: VerdictOK,
	},
	{
		name: "a lift of unknown outcome may have taken the barrier down",
		h: hist(
			mk("c1", KindHold, "B", 0, 1),
			mk("c1", KindLift, "B", 2, never, gaveUp(3)),
			mk("c2", KindWait, "B", 4, 5),
		),
		want: VerdictOK,
	},
	{
		name: "a hold of unknown outcome, tried again, refused",
		h: hist(
			mk("c1", KindHold, "B", 0, never, gaveUp(1)),
			mk("c1", KindHold, "B", 1.5, 2, failed),
			mk("c2", KindWait, "B", 1.2, 5.5),
			mk("c1", KindLift, "B", 5, 5.2),
		),
		want: VerdictOK,
	},
	{
		name: "a hold of unknown outcome in flight across a lift: the barrier may be up again",
		h: hist(
			mk("c1", KindHold, "B", 0, 1),
			mk("c2", KindWait, "B", 1.5, 9),
			mk("c3", KindHold, "B", 1.8, never, gaveUp(2.5)),
			mk("c1", KindLift, "B", 2, 2.5),
		),
		want: VerdictOK,
	},
	{
		name: "a wait at a barrier nobody held",
		h:    hist(mk("c2", KindWait, "B", 0, 0.1)),
		want: VerdictOK,
	},
	{
		name: "a fault never healed leaves the waits' end undecided",
		h: withFaults(hist(
			mk("c1", KindHold, "B", 0, 1),
			mk("c2", KindWait, "B", 1.5, 9),
			mk("c1", KindLift, "B", 2, 2.5),
		), FaultEvent{Name: "isolate(c2)", Start: at(1)}),
		want: VerdictUnknown, wantMsg: `fault "isolate(c2)", injected at 1.000s, was never healed`,
	},
	{
		name: "a lift with no key",
		h:    hist(mk("c1", KindLift, "", 0, 1)),
		want: VerdictInvalid, wantMsg: "lift without a barrier key: want Key to name the barrier",
	},
	{
		name: "one key for two kinds of barrier",
		h: hist(
			mk("c1", KindEnter, "B", 0, 1, count(1)),
			mk("c2", KindWait, "B", 0, 1),
		),
		want: VerdictInvalid, wantMsg: "barrier B is a double barrier too (enter of c1): a key names one barrier",
	},
	{
		name: "a wait that returns before its call",
		h:    hist(mk("c2", KindWait, "B", 2, 1)),
		want: VerdictInvalid, wantMsg: "returns at 1.000s, before its call at 2.000s",
	},
}

func TestPlainBarrierSafety(t *testing.T) {
	for _, tt := range plainBarrierCases {
		t.Run(tt.name, func(t *testing.T) {
			res := BarrierSafety(tt.h, BarrierOptions{Bound: 3 * time.Second})
			if res.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %s %q", res.Verdict, tt.want, res.Summary, messages(res))
			}
			msgs := append(messages(res), res.Summary)
			if tt.wantMsg != "" && !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, tt.wantMsg) }) {
				t.Errorf("no sentence contains %q; have %q", tt.wantMsg, msgs)
			}
		})
	}
}

// The bound defaults to the session TTL + 2 s.
func TestPlainBarrierDefaultBound(t *testing.T) {
	h := hist(
		mk("c1", KindHold, "B", 0, 1),
		mk("c2", KindWait, "B", 1.5, 5.2),
		mk("c1", KindLift, "B", 2, 2.5),
	)
	h.SessionTTL = time.Second
	if res := BarrierSafety(h, BarrierOptions{}); res.Verdict != VerdictOK {
		t.Errorf("woken 2.7 s after the release, bound 3 s: %s %q", res.Verdict, messages(res))
	}
	h.Ops[1].Return = at(5.6)
	if res := BarrierSafety(h, BarrierOptions{}); res.Verdict != VerdictViolation {
		t.Errorf("woken 3.1 s after the release, bound 3 s: %s %q", res.Verdict, messages(res))
	}
}

// genPlainBarrierLoad: one holder holds for hold, lifts, leaves the
// barrier down for down; the waiters wait in a loop, every wait through a
// release.
func genPlainBarrierLoad(waiters int, d, hold, down time.Duration) History {
	const rtt = time.Millisecond
	var ops []Operation
	add := func(client string, kind Kind, call, ret time.Duration) {
		ops = append(ops, Operation{ID: len(ops), Client: client, Kind: kind, Key: "B", Call: call, Return: ret, Outcome: OutcomeOK})
	}
	for t := time.Duration(0); t < d; t += hold + down {
		add("holder", KindHold, t, t+rtt)
		for w := range waiters {
			at := t + 2*rtt + time.Duration(w)*rtt/10
			add(fmt.Sprintf("w%d", w), KindWait, at, t+hold+2*rtt)
		}
		add("holder", KindLift, t+hold, t+hold+rtt)
	}
	h := History{Ops: ops}
	h.SessionTTL = time.Second
	return h
}
