package checker

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Lock histories shared by the MutualExclusion and LockLinearizable tests:
// both checkers must reach the same verdict on each.
var lockCases = []struct {
	name    string
	h       History
	want    Verdict
	wantMsg string // in MutualExclusion's sentences
}{
	{
		name: "sequential holds",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c2", KindAcquire, "/jobs", 1.5, 2.5),
			mk("c1", KindRelease, "/jobs", 2, 2.1),
			mk("c2", KindRelease, "/jobs", 3, 3.1),
		),
		want: VerdictOK,
	},
	{
		name: "touching holds do not overlap",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c2", KindAcquire, "/jobs", 0.5, 2),
			mk("c1", KindRelease, "/jobs", 2, 2.5),
			mk("c2", KindRelease, "/jobs", 3, 3.1),
		),
		want: VerdictOK,
	},
	{
		name: "different locks are independent",
		h: hist(
			mk("c1", KindAcquire, "/a", 0, 1),
			mk("c2", KindAcquire, "/b", 0, 1),
			mk("c1", KindRelease, "/a", 2, 2.1),
			mk("c2", KindRelease, "/b", 2, 2.1),
		),
		want: VerdictOK,
	},
	{
		name: "an acquire of unknown outcome gives no hold",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, never),
			mk("c2", KindAcquire, "/jobs", 1, 2),
			mk("c2", KindRelease, "/jobs", 3, 4),
		),
		want: VerdictOK,
	},
	{
		name: "an acquire that timed out but succeeded, then released",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, never, gaveUp(0.5)),
			mk("c2", KindAcquire, "/jobs", 1, 2),
			mk("c2", KindRelease, "/jobs", 3, 3.5),
			mk("c1", KindRelease, "/jobs", 5, 6),
		),
		want: VerdictOK,
	},
	{
		name: "a client retries an acquire that timed out",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, never),
			mk("c1", KindAcquire, "/jobs", 1, 2),
			mk("c1", KindRelease, "/jobs", 3, 3.5),
			mk("c2", KindAcquire, "/jobs", 2.5, 3.2),
		),
		want: VerdictOK,
	},
	{
		name: "a release of unknown outcome ends the hold at its call",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c1", KindRelease, "/jobs", 2, never),
			mk("c2", KindAcquire, "/jobs", 1.5, 2.5),
		),
		want: VerdictOK,
	},
	{
		name: "a crash ends the hold",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c2", KindAcquire, "/jobs", 3, 6),
			crash("c1", 5),
			mk("c2", KindRelease, "/jobs", 7, 7.1),
		),
		want: VerdictOK,
	},
	{
		name: "failed acquires and failed releases",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c2", KindAcquire, "/jobs", 0.5, 1.5, failed),
			mk("c1", KindRelease, "/jobs", 2, 2.1, failed),
			mk("c1", KindRelease, "/jobs", 3, 3.1),
			mk("c2", KindAcquire, "/jobs", 2.5, 3.5),
		),
		want: VerdictOK,
	},
	{
		name: "overlapping holds",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 2.9, 2.98),
			mk("c2", KindAcquire, "/jobs", 3, 3.412),
			mk("c1", KindRelease, "/jobs", 4.101, 4.2),
			mk("c2", KindRelease, "/jobs", 5, 5.1),
		),
		want:    VerdictViolation,
		wantMsg: "c2 acquired lock /jobs at 3.412s while c1 held it since 2.980s; c1 released at 4.101s",
	},
	{
		name: "the holder never released",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c2", KindAcquire, "/jobs", 2, 3),
		),
		want:    VerdictViolation,
		wantMsg: "c1 never released",
	},
	{
		name: "a failed release does not end the hold",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c1", KindRelease, "/jobs", 2, 3, failed),
			mk("c2", KindAcquire, "/jobs", 3.5, 4),
		),
		want:    VerdictViolation,
		wantMsg: "c2 acquired lock /jobs at 4.000s while c1 held it since 1.000s",
	},
	{
		name: "the holder crashed only after the next acquire",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c2", KindAcquire, "/jobs", 2, 3),
			crash("c1", 4),
		),
		want:    VerdictViolation,
		wantMsg: "c1 crashed at 4.000s",
	},
	{
		name: "a third client overlaps the first, not the second",
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c2", KindAcquire, "/jobs", 1, 1.5, failed),
			mk("c3", KindAcquire, "/jobs", 2, 3),
			mk("c1", KindRelease, "/jobs", 9, 9.5),
			mk("c3", KindRelease, "/jobs", 4, 4.5),
		),
		want:    VerdictViolation,
		wantMsg: "c3 acquired lock /jobs at 3.000s while c1 held it since 1.000s; c1 released at 9.000s",
	},
}

func TestMutualExclusionLocks(t *testing.T) {
	for _, tc := range lockCases {
		t.Run(tc.name, func(t *testing.T) {
			checkResult(t, MutualExclusion(tc.h, MutexOptions{}), tc.want, tc.wantMsg)
		})
	}
}

func TestMutualExclusion(t *testing.T) {
	tests := []struct {
		name    string
		h       History
		opts    MutexOptions
		want    Verdict
		wantMsg string
	}{
		{
			name: "guarded writes from the holder",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1),
				mk("c1", KindGuardedWrite, "/jobs", 1.1, 1.2, value("a")),
				mk("c1", KindRelease, "/jobs", 2, 2.1),
				mk("c2", KindAcquire, "/jobs", 1.5, 2.5),
				mk("c2", KindGuardedWrite, "/jobs", 2.6, 2.7, value("b")),
				mk("c2", KindRelease, "/jobs", 3, 3.1),
			),
			want: VerdictOK,
		},
		{
			name: "a rejected stale write is fine",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1),
				mk("c2", KindAcquire, "/jobs", 1.5, 4),
				mk("c1", KindGuardedWrite, "/jobs", 5, 5.1, value("a"), failed),
				mk("c1", KindRelease, "/jobs", 6, 6.1),
			),
			opts: MutexOptions{ResourceOnly: true},
			want: VerdictOK,
		},
		{
			name: "a superseded holder's write was accepted",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1),
				mk("c2", KindAcquire, "/jobs", 1.5, 4),
				mk("c1", KindGuardedWrite, "/jobs", 5, 5.1, value("a")),
				mk("c1", KindRelease, "/jobs", 6, 6.1),
			),
			opts:    MutexOptions{ResourceOnly: true},
			want:    VerdictViolation,
			wantMsg: `the resource guarded by lock /jobs accepted c1's write of "a" at 5.000s although c2 had acquired the lock at 4.000s, after c1 acquired it at 1.000s`,
		},
		{
			name: "a superseded holder's fenced write that reached the resource before any higher token",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1, withOut(Output{Token: 5})),
				mk("c2", KindAcquire, "/jobs", 1.5, 4, withOut(Output{Token: 7})),
				mk("c1", KindGuardedWrite, "/jobs", 5, 5.1, withIn(Input{Value: "a", Token: 5})),
				mk("c2", KindGuardedWrite, "/jobs", 6, 6.1, withIn(Input{Value: "b", Token: 7})),
				mk("c1", KindRelease, "/jobs", 6, 6.1),
			),
			opts: MutexOptions{ResourceOnly: true},
			want: VerdictOK,
		},
		{
			name: "a superseded holder's fenced write accepted after a higher token",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1, withOut(Output{Token: 5})),
				mk("c2", KindAcquire, "/jobs", 1.5, 4, withOut(Output{Token: 7})),
				mk("c2", KindCounterRead, "/jobs", 4.1, 4.2, withIn(Input{Token: 7}), withOut(Output{Count: 0})),
				mk("c1", KindGuardedWrite, "/jobs", 5, 5.1, withIn(Input{Value: "a", Token: 5})),
				mk("c1", KindRelease, "/jobs", 6, 6.1),
			),
			opts:    MutexOptions{ResourceOnly: true},
			want:    VerdictViolation,
			wantMsg: `accepted c1's write of "a" at 5.000s although c2 had acquired the lock at 4.000s`,
		},
		{
			name: "a write from a client that held nothing was accepted",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1),
				mk("c3", KindGuardedWrite, "/jobs", 1.5, 1.6, value("x")),
			),
			want:    VerdictViolation,
			wantMsg: "while c3 did not hold the lock",
		},
		{
			name: "every acknowledged add is in the set",
			h: hist(
				mk("c1", KindSetAdd, "/set", 0, 1, value("1")),
				mk("c2", KindSetAdd, "/set", 1, 2, value("2")),
				mk("c3", KindSetAdd, "/set", 1, never, value("3")),
				mk("c4", KindSetAdd, "/set", 1, 2, value("4"), failed),
				mk("c1", KindSetRead, "/set", 3, 4, withOut(Output{Values: []string{"1", "2"}})),
				mk("c2", KindSetRead, "/set", 3, 4, withOut(Output{Values: []string{"1", "2", "3"}})),
			),
			want: VerdictOK,
		},
		{
			name: "a lost update in the set",
			h: hist(
				mk("c1", KindSetAdd, "/set", 0, 1, value("1")),
				mk("c2", KindSetAdd, "/set", 1, 2, value("2")),
				mk("c1", KindSetRead, "/set", 3, 4, withOut(Output{Values: []string{"2"}})),
			),
			want:    VerdictViolation,
			wantMsg: `c1's read of the set guarded by lock /set at 3.000s lacks "1", which c1 added at 0.000s (ok at 1.000s): a lost update`,
		},
		{
			name: "an element nobody added",
			h: hist(
				mk("c1", KindSetAdd, "/set", 0, 1, value("1")),
				mk("c2", KindSetAdd, "/set", 5, 6, value("2")),
				mk("c1", KindSetRead, "/set", 3, 4, withOut(Output{Values: []string{"1", "2"}})),
			),
			want:    VerdictViolation,
			wantMsg: `contains "2", which no add called before the read returned could have written`,
		},
		{
			name: "a counter within its bounds",
			h: hist(
				mk("c1", KindCounterIncr, "/n", 0, 1),
				mk("c2", KindCounterIncr, "/n", 1, never),
				mk("c3", KindCounterIncr, "/n", 2, 4),
				mk("c1", KindCounterRead, "/n", 3, 3.5, withOut(Output{Count: 3})),
			),
			want: VerdictOK,
		},
		{
			name: "a counter lost increments",
			h: hist(
				mk("c1", KindCounterIncr, "/n", 0, 1),
				mk("c2", KindCounterIncr, "/n", 1, 2),
				mk("c3", KindCounterIncr, "/n", 2, 2.5),
				mk("c1", KindCounterRead, "/n", 3, 3.5, withOut(Output{Count: 1})),
			),
			want:    VerdictViolation,
			wantMsg: "c1 read the counter guarded by lock /n as 1 at 3.000s, but 3 increments had completed before the read began: 2 lost updates",
		},
		{
			name: "a counter counted increments nobody made",
			h: hist(
				mk("c1", KindCounterIncr, "/n", 0, 1),
				mk("c1", KindCounterRead, "/n", 3, 3.5, withOut(Output{Count: 2})),
			),
			want:    VerdictViolation,
			wantMsg: "at most 1 increments had been called by then",
		},
		{
			name:    "a release with no matching acquire",
			h:       hist(mk("c1", KindRelease, "/jobs", 0, 1)),
			want:    VerdictInvalid,
			wantMsg: "release with no matching acquire",
		},
		{
			name: "a release after a failed acquire",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1, failed),
				mk("c1", KindRelease, "/jobs", 2, 3),
			),
			want:    VerdictInvalid,
			wantMsg: "release with no matching acquire",
		},
		{
			name: "an acquire while holding",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1),
				mk("c1", KindAcquire, "/jobs", 2, 3),
			),
			want:    VerdictInvalid,
			wantMsg: "c1 acquire while it already held it",
		},
		{
			name: "a release called before its acquire returned",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 2),
				mk("c1", KindRelease, "/jobs", 1, 3),
			),
			want:    VerdictInvalid,
			wantMsg: "called before its acquire returned at 2.000s",
		},
		{
			name: "an acquire that returned after its client crashed",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 2),
				crash("c1", 1),
			),
			want:    VerdictInvalid,
			wantMsg: "after c1 crashed at 1.000s",
		},
		{
			name:    "an acquire without a lock name",
			h:       hist(mk("c1", KindAcquire, "", 0, 1)),
			want:    VerdictInvalid,
			wantMsg: "acquire without a lock name",
		},
		{
			name:    "a guarded write without a lock name",
			h:       hist(mk("c1", KindGuardedWrite, "", 0, 1)),
			want:    VerdictInvalid,
			wantMsg: "guarded-write without a lock name",
		},
		{
			name: "nothing to judge",
			h:    hist(mk("c1", KindRead, "/r", 0, 1)),
			want: VerdictUnknown,
		},
		{
			name: "every acquire timed out",
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, never),
				mk("c2", KindAcquire, "/jobs", 0, 1, failed),
			),
			want: VerdictUnknown,
		},
		{
			name: "nothing to judge on the resource",
			h:    hist(mk("c1", KindAcquire, "/jobs", 0, 1)),
			opts: MutexOptions{ResourceOnly: true},
			want: VerdictUnknown,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkResult(t, MutualExclusion(tc.h, tc.opts), tc.want, tc.wantMsg)
		})
	}
}

func TestMutualExclusionProof(t *testing.T) {
	h := lockCases[9].h // overlapping holds
	res := MutualExclusion(h, MutexOptions{})
	if len(res.Violations) != 1 {
		t.Fatalf("got %d violations, want 1: %+v", len(res.Violations), res)
	}
	if diff := cmp.Diff([]int{0, 1, 2}, res.Violations[0].OpIDs()); diff != "" {
		t.Errorf("operations proving the overlap (-want +got):\n%s", diff)
	}
	wantMetrics := map[string]float64{"locks": 1, "holds": 2, "overlapping_holds": 1, "violations": 1,
		"guarded_writes_accepted": 0, "lost_set_updates": 0, "lost_counter_updates": 0}
	if diff := cmp.Diff(wantMetrics, res.Metrics); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func TestMutualExclusionMaxViolations(t *testing.T) {
	var ops []Operation
	for i := range 50 {
		ops = append(ops, mk("c"+string(rune('a'+i%26))+string(rune('a'+i/26)), KindAcquire, "/jobs", float64(i), float64(i)+0.5))
	}
	h := hist(ops...)
	for _, tc := range []struct {
		name string
		max  int
		kept int
	}{
		{name: "default", max: 0, kept: 20},
		{name: "three", max: 3, kept: 3},
		{name: "all", max: -1, kept: 49},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := MutualExclusion(h, MutexOptions{MaxViolations: tc.max})
			if len(res.Violations) != tc.kept || res.Metrics["violations"] != 49 {
				t.Errorf("kept %d violations of %v, want %d of 49", len(res.Violations), res.Metrics["violations"], tc.kept)
			}
		})
	}
}

// A lost update is told once, at the first read that misses it, not again
// at every later read; a read that misses one more is told.
func TestLostCounterUpdatesToldOnce(t *testing.T) {
	h := hist(
		mk("c1", KindCounterIncr, "/n", 0, 1),
		mk("c2", KindCounterIncr, "/n", 0.5, 1.5),
		mk("c1", KindCounterRead, "/n", 2, 2.1, withOut(Output{Count: 1})),
		mk("c2", KindCounterRead, "/n", 3, 3.1, withOut(Output{Count: 1})),
		mk("c3", KindCounterIncr, "/n", 4, 4.5),
		mk("c3", KindCounterIncr, "/n", 5, 5.5),
		mk("c1", KindCounterRead, "/n", 6, 6.1, withOut(Output{Count: 2})),
	)
	res := MutualExclusion(h, MutexOptions{})
	if res.Verdict != VerdictViolation || len(res.Violations) != 2 {
		t.Fatalf("verdict %s with %d violations, want a violation told twice: %+v", res.Verdict, len(res.Violations), res.Violations)
	}
	if got := res.Metrics["lost_counter_updates"]; got != 2 {
		t.Errorf("lost_counter_updates = %v, want 2", got)
	}
}
