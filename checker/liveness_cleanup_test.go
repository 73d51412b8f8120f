package checker

import (
	"testing"
	"time"
)

// A take given up in the queue is blamed for an orphaned waiter key only
// when the history does not show it cleaned up: the key it wrote while it
// waited is checked against the deletes its process made and against
// what etcd held at the run's end.
func TestLivenessOrphanCheckedAgainstDeletes(t *testing.T) {
	opts := LivenessOptions{TTL: time.Second, Bound: 3 * time.Second}
	fault := healed("partition(leader)", 5, 10)
	// c2's acquire writes its waiter key at 10.7 s, is given up at 12.6 s,
	// and c2 asks again; the lock stays free until 20 s.
	base := func(extra ...Operation) History {
		ops := []Operation{
			mk("c1", KindAcquire, "/jobs", 10, 10.5),
			mk("c1", KindRelease, "/jobs", 11, 11.2),
			mk("c2", KindAcquire, "/jobs", 10.6, never, gaveUp(12.6), errMsg("context deadline exceeded")),
			putAt("c2", "/jobs/c2a", 5, 10.7),
			mk("c2", KindAcquire, "/jobs", 12.7, 20),
		}
		ops[3].Output.Revision = 40
		return withFaults(hist(append(ops, extra...)...), fault)
	}
	del := func(client, key string, call float64) Operation {
		return mk(client, KindDeleteRange, key, call, call+0.05, withOut(Output{Count: 1}))
	}
	starvationCases(t, opts, []starvationCase{
		{
			name: "no delete, and etcd still held the key at the end: an orphan",
			h: func() History {
				h := base()
				h.Final = &FinalState{At: at(30), Keys: []FinalKey{{Key: "/jobs/c2a", Lease: 5, CreateRevision: 40}}}
				return h
			}(),
			want: []string{"an acquire may leave its waiter key in etcd (c2 wrote its key /jobs/c2a at 10.700s, op 3, and did not delete it; " +
				"etcd still held it when the run ended at 30.000s) — an orphaned waiter key"},
		},
		{
			name: "no delete, end state not recorded: an orphan, as before",
			h:    base(),
			want: []string{"an acquire may leave its waiter key in etcd (c2 wrote its key /jobs/c2a at 10.700s, op 3, and did not delete it) — an orphaned waiter key"},
		},
		{
			name:  "the acquire deleted its waiter key when it gave up: no orphan",
			h:     base(del("c2", "/jobs/c2a", 12.61)),
			want:  []string{"its last holder c1 released at 11.200s: either that release left the key in etcd or the waiters missed its deletion"},
			unsay: []string{"orphaned"},
		},
		{
			name:  "a delete of a range that holds the key: no orphan",
			h:     base(mk("c2/1", KindDeleteRange, "/jobs/", 12.61, 12.62, withIn(Input{Value: "/jobs0"}))),
			unsay: []string{"orphaned"},
		},
		{
			name: "another process's delete does not clean up for c2",
			h:    base(del("c3", "/jobs/c2a", 12.61)),
			want: []string{"an orphaned waiter key"},
		},
		{
			name: "a delete after the stretch began does not clean up",
			h:    base(del("c2", "/jobs/c2a", 15)),
			want: []string{"an orphaned waiter key"},
		},
	})
}
