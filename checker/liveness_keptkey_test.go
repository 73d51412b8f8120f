package checker

import (
	"strings"
	"testing"
	"time"
)

// A starvation after a release that returned ok names what the end state
// shows: the holder's key still in etcd on the lease it was written on,
// and that lease renewed after the release; a take given up in the queue
// whose put etcd refused wrote no waiter key, and is not blamed for one.
func TestLivenessBlamesTheKeptKey(t *testing.T) {
	opts := LivenessOptions{TTL: time.Second, Bound: 3 * time.Second}
	// c1 takes the lock at 10 s, writing /jobs/L on lease 7 (revision 30),
	// is told at 10.9 s it may have lost it and releases at 11.2 s without
	// deleting it; it asks again at 11.3 s, its put refused, gives up at
	// 14 s and asks again until 20 s. The partition heals at 12 s, while
	// that put's take waits; the lock stays free to the end.
	base := func(final *FinalState) History {
		put := putAt("c1", "/jobs/L", 7, 10.1)
		put.Output.Revision = 30
		refused := putAt("c1", "/jobs/L", 8, 11.4)
		refused.Outcome, refused.Output = OutcomeFailed, Output{}
		h := withFaults(hist(
			mk("c1", KindAcquire, "/jobs", 10, 10.5),
			put,
			mk("c1", KindLost, "/jobs", 10.9, 10.9),
			mk("c1", KindRelease, "/jobs", 11.2, 11.2),
			mk("c1", KindAcquire, "/jobs", 11.3, never, gaveUp(14), errMsg("context deadline exceeded")),
			refused,
			mk("c1", KindAcquire, "/jobs", 14.1, never, gaveUp(20), errMsg("context deadline exceeded")),
		), healed("partition(leader)", 5, 12))
		h.Final = final
		return h
	}
	held := func(cr int64, remaining time.Duration) *FinalState {
		return &FinalState{At: at(20), Keys: []FinalKey{{Key: "/jobs/L", Lease: 7, CreateRevision: cr}},
			Leases: []FinalLease{{ID: 7, TTL: 3 * time.Second, Remaining: remaining, Keys: []string{"/jobs/L"}}}}
	}
	const guess = "either that release left the key in etcd or the waiters missed its deletion"
	starvationCases(t, opts, []starvationCase{
		{
			name: "the key stayed on a lease renewed after the release",
			h:    base(held(30, 2*time.Second)),
			want: []string{"its last holder c1 released at 11.200s (told at 10.900s that it may have lost the lock), but that release left its key in etcd: " +
				"c1 wrote /jobs/L on lease 7 (op 1 at 10.100s), and etcd still held it, on that lease, when the run ended at 20.000s, " +
				"with 2s of the lease's 3s TTL left: the lease was last renewed at 19.000s or later, 7.8s after that release and after the last fault that could renew every lease ended at 12.000s — a holder whose lease never expired"},
			unsay: []string{"orphaned", guess},
		},
		{
			name:  "the key stayed on a lease not shown renewed since",
			h:     base(&FinalState{At: at(12), Keys: []FinalKey{{Key: "/jobs/L", Lease: 7, CreateRevision: 30}}, Leases: []FinalLease{{ID: 7, TTL: 3 * time.Second}}}),
			want:  []string{"but that release left its key in etcd", "the lease still alive with 0s of its 3s left"},
			unsay: []string{"never expired", guess},
		},
		{
			name:  "a key of the same name written anew is not the holder's",
			h:     base(held(44, 2*time.Second)),
			want:  []string{"its last holder c1 released at 11.200s: " + guess},
			unsay: []string{"orphaned", "never expired"},
		},
		{
			name:  "no end state: the old guess",
			h:     base(nil),
			want:  []string{"its last holder c1 released at 11.200s: " + guess},
			unsay: []string{"orphaned"},
		},
	})
}

// starvationCase is a history Liveness is to find a starvation in, and
// what its sentence must and must not say.
type starvationCase struct {
	name  string
	h     History
	want  []string // pieces of the starvation sentence
	unsay []string // pieces it must not say
}

// starvationCases runs Liveness with opts on each case's history, a
// subtest each (starvationSays).
func starvationCases(t *testing.T, opts LivenessOptions, cases []starvationCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			starvationSays(t, Liveness(tc.h, opts), tc.want, tc.unsay)
		})
	}
}

// starvationSays requires res to find a starvation whose first sentence
// says every piece of want and none of unsay.
func starvationSays(t *testing.T, res Result, want, unsay []string) {
	t.Helper()
	if res.Verdict != VerdictViolation || len(res.Violations) == 0 {
		t.Fatalf("verdict %s (%s), want the starvation", res.Verdict, res.Summary)
	}
	msg := res.Violations[0].Message
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("the sentence does not say %q:\n%s", w, msg)
		}
	}
	for _, u := range unsay {
		if strings.Contains(msg, u) {
			t.Errorf("the sentence says %q:\n%s", u, msg)
		}
	}
}
