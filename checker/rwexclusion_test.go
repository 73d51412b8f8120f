package checker

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// Read-write lock histories, the failing ones first: a checker that could
// only say ok would pass none of them.
var rwCases = []struct {
	name    string
	h       History
	want    Verdict
	wantMsg string
}{
	{
		name: "a writer inside a reader's hold",
		h: hist(
			mk("c1", KindRLock, "RW", 0, 1),
			mk("c2", KindAcquire, "RW", 0.5, 1.5),
			mk("c1", KindRUnlock, "RW", 2, 2.1),
			mk("c2", KindRelease, "RW", 3, 3.1),
		),
		want:    VerdictViolation,
		wantMsg: "c2 write-locked lock RW at 1.500s while c1 read-held it since 1.000s; c1 let go at 2.000s",
	},
	{
		name: "a reader inside a writer's hold",
		h: hist(
			mk("c1", KindAcquire, "RW", 0, 1),
			mk("c2", KindRLock, "RW", 0.5, 1.5),
			mk("c2", KindRUnlock, "RW", 1.6, 1.7),
			mk("c1", KindRelease, "RW", 2, 2.1),
		),
		want:    VerdictViolation,
		wantMsg: "c2 read-locked lock RW at 1.500s while c1 write-held it since 1.000s",
	},
	{
		name: "two writers",
		h: hist(
			mk("c1", KindAcquire, "RW", 0, 1),
			mk("c2", KindAcquire, "RW", 0.5, 1.5),
			mk("c1", KindRelease, "RW", 2, 2.1),
			mk("c2", KindRelease, "RW", 3, 3.1),
		),
		want:    VerdictViolation,
		wantMsg: "c2 write-locked lock RW at 1.500s while c1 write-held it since 1.000s",
	},
	{
		name: "a writer that never let go, after a long reader",
		h: hist(
			mk("c1", KindAcquire, "RW", 0, 0.1),
			mk("c2", KindRLock, "RW", 0, 0.05),
			mk("c2", KindRUnlock, "RW", 5, 5.1),
		),
		want:    VerdictViolation,
		wantMsg: "c1 write-locked lock RW at 0.100s while c2 read-held it since 0.050s",
	},
	{
		name: "a runlock with no rlock",
		h: hist(
			mk("c1", KindRUnlock, "RW", 0, 1),
		),
		want:    VerdictInvalid,
		wantMsg: "runlock with no matching rlock",
	},
	{
		name: "readers share",
		h: hist(
			mk("c1", KindRLock, "RW", 0, 1),
			mk("c2", KindRLock, "RW", 0.5, 1.5),
			mk("c1", KindRUnlock, "RW", 2, 2.1),
			mk("c2", KindRUnlock, "RW", 3, 3.1),
			mk("c3", KindAcquire, "RW", 0.7, 3.1),
			mk("c3", KindRelease, "RW", 4, 4.1),
		),
		want: VerdictOK,
	},
	{
		name: "a crash ends a writer's hold; a failed runlock keeps a reader's",
		h: hist(
			mk("c1", KindAcquire, "RW", 0, 1),
			crash("c1", 2),
			mk("c2", KindRLock, "RW", 1, 2),
			mk("c2", KindRUnlock, "RW", 2.5, 2.6, failed),
			mk("c2", KindRUnlock, "RW", 3, 3.1),
			mk("c3", KindAcquire, "RW", 1, 3),
			mk("c3", KindRelease, "RW", 4, 4.1),
		),
		want: VerdictOK,
	},
	{
		name: "no holds",
		h:    hist(mk("c1", KindAcquire, "RW", 0, never)),
		want: VerdictUnknown,
	},
}

func TestRWExclusion(t *testing.T) {
	for _, tt := range rwCases {
		t.Run(tt.name, func(t *testing.T) {
			res := RWExclusion(tt.h, RWOptions{})
			if res.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %s", res.Verdict, tt.want, res.Summary)
			}
			if tt.wantMsg != "" && !slices.ContainsFunc(messages(res), func(m string) bool { return strings.Contains(m, tt.wantMsg) }) {
				t.Errorf("no sentence contains %q; have %q", tt.wantMsg, messages(res))
			}
			if tt.want == VerdictViolation && len(res.Violations[0].Ops) < 2 {
				t.Errorf("violation names %d operations, want the two holds", len(res.Violations[0].Ops))
			}
		})
	}
}

// Liveness counts a reader's hold as a hold of the lock, and a reader's
// wait as a wait for it.
func TestLivenessReaders(t *testing.T) {
	for _, tt := range []struct {
		name string
		h    History
		want Verdict
	}{
		{
			name: "a reader starves on a free lock",
			h: hist(
				mk("c1", KindAcquire, "RW", 0, 0.1),
				mk("c1", KindRelease, "RW", 0.2, 0.3),
				mk("c2", KindRLock, "RW", 0.5, never, gaveUp(9)),
			),
			want: VerdictViolation,
		},
		{
			name: "a writer waits while readers hold",
			h: hist(
				mk("c1", KindRLock, "RW", 0, 0.1),
				mk("c2", KindAcquire, "RW", 0.5, 6),
				mk("c1", KindRUnlock, "RW", 5.9, 6),
				mk("c2", KindRelease, "RW", 6.5, 6.6),
			),
			want: VerdictOK,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := Liveness(tt.h, LivenessOptions{TTL: time.Second, Bound: 2 * time.Second})
			if res.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %s %q", res.Verdict, tt.want, res.Summary, messages(res))
			}
		})
	}
}

// genRWLoad generates a well-behaved read-write lock workload: clients
// take turns on each lock; every fourth hold is a writer's, alone, and the
// readers between writers share the lock two at a time.
func genRWLoad(locks, clients, holdsPerLock int) History {
	const step = time.Microsecond
	var ops []Operation
	for l := range locks {
		key := fmt.Sprintf("/rw/%d", l)
		t := time.Duration(l) * step
		for k := 0; k < holdsPerLock; k += 2 {
			c1, c2 := fmt.Sprintf("l%d-c%d", l, k%clients), fmt.Sprintf("l%d-c%d", l, (k+1)%clients)
			if k%4 == 0 {
				ops = append(ops,
					Operation{Client: c1, Kind: KindAcquire, Key: key, Call: t, Return: t + step, Outcome: OutcomeOK},
					Operation{Client: c1, Kind: KindRelease, Key: key, Call: t + 2*step, Return: t + 3*step, Outcome: OutcomeOK})
			} else {
				ops = append(ops,
					Operation{Client: c1, Kind: KindRLock, Key: key, Call: t, Return: t + step, Outcome: OutcomeOK},
					Operation{Client: c2, Kind: KindRLock, Key: key, Call: t, Return: t + step, Outcome: OutcomeOK},
					Operation{Client: c1, Kind: KindRUnlock, Key: key, Call: t + 2*step, Return: t + 3*step, Outcome: OutcomeOK},
					Operation{Client: c2, Kind: KindRUnlock, Key: key, Call: t + 2*step, Return: t + 3*step, Outcome: OutcomeOK})
			}
			t += 3 * step
		}
	}
	slices.SortFunc(ops, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Client, b.Client), cmp.Compare(a.Kind, b.Kind))
	})
	for i := range ops {
		ops[i].ID = i
	}
	return History{Ops: ops}
}

// A 10-minute run of 10 clients holding a read-write lock for 100 ms at a
// time with 50 ms between holds makes about 40,000 holds; this judges
// 100,000.
func BenchmarkRWExclusion(b *testing.B) {
	h := genRWLoad(10, 10, 10000)
	benchCheck(b, "ops", h, func(h History) Result { return RWExclusion(h, RWOptions{}) })
}
