package checker

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLiveness(t *testing.T) {
	opts := LivenessOptions{TTL: time.Second, Bound: 3 * time.Second}
	fault := healed("partition(leader)", 5, 10)
	tests := []struct {
		name    string
		h       History
		opts    LivenessOptions
		want    Verdict
		wantMsg string
	}{
		{
			name: "a waiter acquires soon after the heal",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 4, 11),
				mk("c1", KindRelease, "/jobs", 12, 12.1),
				mk("c2", KindAcquire, "/jobs", 11.5, 12.5),
				mk("c2", KindRelease, "/jobs", 13, 13.1),
			), fault),
			opts: opts,
			want: VerdictOK,
		},
		{
			name: "waiting during the fault does not count",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 1, 12),
				mk("c1", KindRelease, "/jobs", 12, 12.1),
			), fault),
			opts: opts,
			want: VerdictOK,
		},
		{
			name: "a crashed holder's lock is taken within TTL and the bound",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 11),
				crash("c1", 12),
				mk("c2", KindAcquire, "/jobs", 11.5, 15.5),
			), fault),
			opts: opts,
			want: VerdictOK,
		},
		{
			name: "a lock left free while a client waits",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 11),
				mk("c1", KindRelease, "/jobs", 11, 11.5),
				mk("c2", KindAcquire, "/jobs", 10.5, never, gaveUp(20)),
				mk("c3", KindAcquire, "/jobs", 25, 26),
			), fault),
			opts:    opts,
			want:    VerdictViolation,
			wantMsg: "lock /jobs was acquired by nobody while c2 waited for it from 11.500s to 20.000s (8.5s, bound 3s), after the last heal at 10.000s",
		},
		{
			name: "a crashed holder's lock is not taken in time",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 11),
				crash("c1", 12),
				mk("c2", KindAcquire, "/jobs", 11.5, 18),
			), fault),
			opts:    opts,
			want:    VerdictViolation,
			wantMsg: "lock /jobs was acquired by nobody while c2 waited for it from 13.000s to 18.000s (5s, bound 3s), after the last heal at 10.000s; its last holder c1 crashed at 12.000s, so its lease (TTL 1s) should have taken its key by 13.000s",
		},
		{
			name: "an acquire that timed out but succeeded starves the others",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, never, gaveUp(10.5)),
				mk("c2", KindAcquire, "/jobs", 10.2, 11),
				mk("c2", KindRelease, "/jobs", 11, 11.1),
				mk("c3", KindAcquire, "/jobs", 12, never, gaveUp(30)),
			), fault),
			opts:    opts,
			want:    VerdictViolation,
			wantMsg: "lock /jobs was acquired by nobody while c3 waited for it from 12.000s to 30.000s",
		},
		{
			name: "an election without a leader while a candidate campaigns",
			h: withFaults(hist(
				mk("c1", KindCampaign, "/e", 10, 11),
				mk("c1", KindResign, "/e", 11, 11.1),
				mk("c2", KindCampaign, "/e", 11, 20),
			), fault),
			opts:    opts,
			want:    VerdictViolation,
			wantMsg: "election /e had no leader while c2 campaigned from 11.100s to 20.000s",
		},
		{
			name: "the default bound is TTL + 2s",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 11),
				mk("c1", KindRelease, "/jobs", 11, 11.5),
				mk("c2", KindAcquire, "/jobs", 10.5, 14),
			), fault),
			opts: LivenessOptions{TTL: time.Second},
			want: VerdictOK,
		},
		{
			name: "the TTL comes from the history",
			h: func() History {
				h := withFaults(hist(
					mk("c1", KindAcquire, "/jobs", 10, 11),
					mk("c1", KindRelease, "/jobs", 11, 11.5),
					mk("c2", KindAcquire, "/jobs", 10.5, 16),
				), fault)
				h.SessionTTL = time.Second
				return h
			}(),
			want:    VerdictViolation,
			wantMsg: "(4.5s, bound 3s)",
		},
		{
			name: "a fault that never healed",
			h: withFaults(hist(mk("c1", KindAcquire, "/jobs", 10, 11)),
				FaultEvent{Name: "kill(leader)", Start: at(5)}),
			opts: opts,
			want: VerdictUnknown,
		},
		{
			name: "an injection that failed does not count as a fault in force",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 11),
			), fault, FaultEvent{Name: "kill(leader)", Start: at(7), End: at(7), Err: "no leader"}),
			opts: opts,
			want: VerdictOK,
		},
		{
			name: "a fault whose heal failed is in force",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 11),
			), FaultEvent{Name: "kill(m1)", Start: at(7), End: at(9), Err: "restart m1: timed out"}),
			opts: opts,
			want: VerdictUnknown,
		},
		{
			name: "no progress to judge after the heal",
			h:    withFaults(hist(mk("c1", KindAcquire, "/jobs", 1, 2)), fault),
			opts: opts,
			want: VerdictUnknown,
		},
		{
			name:    "a release with no matching acquire",
			h:       hist(mk("c1", KindRelease, "/jobs", 0, 1)),
			opts:    opts,
			want:    VerdictInvalid,
			wantMsg: "release with no matching acquire",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkResult(t, Liveness(tc.h, tc.opts), tc.want, tc.wantMsg)
		})
	}
}

func TestLivenessRecovery(t *testing.T) {
	h := withFaults(hist(
		mk("c1", KindAcquire, "/a", 9, 11),
		mk("c1", KindCampaign, "/e", 9, 12),
	), healed("kill", 5, 10))
	res := Liveness(h, LivenessOptions{TTL: time.Second})
	checkResult(t, res, VerdictOK, "")
	want := Distribution{Count: 2, Min: at(1), Mean: at(1.5), P50: at(2), P90: at(2), P99: at(2), Max: at(2)}
	if diff := cmp.Diff(want, res.Distributions["recovery"]); diff != "" {
		t.Errorf("recovery (-want +got):\n%s", diff)
	}
}

// retries builds client's attempts to take key (kind acquire or campaign):
// the first called at from, then one every `every` seconds while before
// until, each given up after timeout seconds with its outcome unknown, as a
// Lock whose context timed out.
func retries(client string, kind Kind, key string, from, every, timeout, until float64) []Operation {
	var ops []Operation
	for n := 0; ; n++ {
		call := from + float64(n)*every
		if call >= until {
			return ops
		}
		ops = append(ops, mk(client, kind, key, call, never, gaveUp(call+timeout)))
	}
}

// polls builds client's TryLock-style attempts on key: one every `every`
// seconds from from while before until, each failing after 50ms.
func polls(client string, key string, from, every, until float64) []Operation {
	var ops []Operation
	for n := 0; ; n++ {
		call := from + float64(n)*every
		if call >= until {
			return ops
		}
		ops = append(ops, mk(client, KindAcquire, key, call, call+0.05, failed))
	}
}

// TestLivenessRetries: a client's retries are one wait, so a waiter that
// retries with short timeouts still starves when the lock is never freed.
func TestLivenessRetries(t *testing.T) {
	opts := LivenessOptions{TTL: time.Second, Bound: 3 * time.Second}
	fault := healed("partition(leader)", 5, 10)
	// c1 takes the lock after the heal and crashes; its lease would free
	// the lock at 13s.
	crashedHolder := []Operation{
		mk("c1", KindAcquire, "/jobs", 10.5, 11),
		crash("c1", 12),
	}
	tests := []struct {
		name    string
		h       History
		want    Verdict
		wantMsg string
	}{
		{
			name: "a waiter retrying for 20s never gets a crashed holder's lock",
			h: withFaults(hist(slices.Concat(crashedHolder,
				retries("c2", KindAcquire, "/jobs", 12, 1.1, 1, 32))...), fault),
			want:    VerdictViolation,
			wantMsg: "lock /jobs was acquired by nobody while c2 waited for it from 13.000s to 32.800s (19.8s, bound 3s, over 19 attempts), after the last heal at 10.000s; its last holder c1 crashed at 12.000s, so its lease (TTL 1s) should have taken its key by 13.000s",
		},
		{
			name: "a waiter that gives up after two attempts and never returns",
			h: func() History {
				h := withFaults(hist(slices.Concat(crashedHolder,
					retries("c2", KindAcquire, "/jobs", 12, 1.1, 1, 14))...), fault)
				h.End = at(32)
				return h
			}(),
			want: VerdictOK,
		},
		{
			name: "the holder's lease frees the lock and a retry takes it within the bound",
			h: withFaults(hist(slices.Concat(crashedHolder,
				retries("c2", KindAcquire, "/jobs", 12, 1.1, 1, 14),
				[]Operation{
					mk("c2", KindAcquire, "/jobs", 14.2, 14.5),
					mk("c2", KindRelease, "/jobs", 15, 15.1),
				})...), fault),
			want: VerdictOK,
		},
		{
			name: "a holder that took the lock after the heal crashed while another polls",
			h: withFaults(hist(slices.Concat(crashedHolder,
				polls("c2", "/jobs", 11, 0.5, 30))...), fault),
			want:    VerdictViolation,
			wantMsg: "lock /jobs was acquired by nobody while c2 waited for it from 13.000s to 29.550s (16.55s, bound 3s, over 38 attempts)",
		},
		{
			name: "a candidate retrying for 20s never leads after the leader crashed",
			h: withFaults(hist(slices.Concat(
				[]Operation{mk("c1", KindCampaign, "/e", 10.5, 11), crash("c1", 12)},
				retries("c2", KindCampaign, "/e", 12, 1.1, 1, 32))...), fault),
			want:    VerdictViolation,
			wantMsg: "election /e had no leader while c2 campaigned from 13.000s to 32.800s (19.8s, bound 3s, over 19 attempts), after the last heal at 10.000s; its last leader c1 crashed at 12.000s, so its lease (TTL 1s) should have taken its key by 13.000s",
		},
		{
			name: "retries on a free lock with nobody taking it after the heal",
			h: withFaults(hist(
				retries("c2", KindAcquire, "/jobs", 11, 1.1, 1, 20)...), fault),
			want:    VerdictViolation,
			wantMsg: "lock /jobs was acquired by nobody while c2 waited for it from 11.000s to 20.800s (9.8s, bound 3s, over 9 attempts)",
		},
		{
			name: "a waiter that stays away longer than the bound starts a new wait",
			h: withFaults(hist(slices.Concat(crashedHolder,
				retries("c2", KindAcquire, "/jobs", 12, 1.1, 1, 14),
				retries("c2", KindAcquire, "/jobs", 20, 1.1, 1, 22))...), fault),
			want: VerdictOK,
		},
		{
			name: "a waiter that releases between attempts goes on waiting",
			h: withFaults(hist(slices.Concat(crashedHolder, []Operation{
				mk("c2", KindAcquire, "/jobs", 12, never, gaveUp(13)),
				mk("c2", KindRelease, "/jobs", 13, 13.1),
				mk("c2", KindAcquire, "/jobs", 13.2, never, gaveUp(14.2)),
				mk("c2", KindRelease, "/jobs", 14.2, 14.3),
				mk("c2", KindAcquire, "/jobs", 14.4, never, gaveUp(15.4)),
				mk("c2", KindRelease, "/jobs", 15.4, 15.5),
				mk("c2", KindAcquire, "/jobs", 15.6, never, gaveUp(16.6)),
			})...), fault),
			want:    VerdictViolation,
			wantMsg: "from 13.000s to 16.600s (3.6s, bound 3s, over 4 attempts)",
		},
		{
			name: "a waiter's crash ends its wait",
			h: withFaults(hist(slices.Concat(crashedHolder,
				retries("c2", KindAcquire, "/jobs", 12, 1.1, 1, 14),
				[]Operation{crash("c2", 14.2)},
				retries("c2", KindAcquire, "/jobs", 14.3, 1.1, 1, 16))...), fault),
			want: VerdictOK,
		},
		{
			name: "a key nobody wanted after the heal",
			h: withFaults(hist(
				retries("c2", KindAcquire, "/jobs", 1, 1.1, 1, 6)...), fault),
			want: VerdictUnknown,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkResult(t, Liveness(tc.h, opts), tc.want, tc.wantMsg)
		})
	}
}

// errMsg sets the error an operation saw.
func errMsg(e string) mod { return func(op *Operation) { op.Error = e } }

// TestLivenessNamesWhatHeld: a starvation or leaderless sentence names what
// held the key while the waiter waited, with the operations that show it.
func TestLivenessNamesWhatHeld(t *testing.T) {
	opts := LivenessOptions{TTL: time.Second, Bound: 3 * time.Second}
	fault := healed("partition(leader)", 5, 10)
	type finding struct {
		Message string
		Ops     []int
	}
	tests := []struct {
		name string
		h    History
		want finding
	}{
		{
			name: "a release that timed out",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 10.5),
				mk("c1", KindRelease, "/jobs", 11, never, gaveUp(16), errMsg("context deadline exceeded")),
				mk("c2", KindAcquire, "/jobs", 10.6, 20),
			), fault),
			want: finding{
				Message: "lock /jobs was acquired by nobody while c2 waited for it from 12.000s to 20.000s (8s, bound 3s), " +
					"after the last heal at 10.000s; its last holder c1's release, called at 11.000s, was given up at 16.000s " +
					"(context deadline exceeded); from 12.000s, a TTL (1s) after that call, the checker counted the lock free, " +
					"though the release had not answered: a release whose outcome is unknown (stuck on a dropped proposal, say) " +
					"may have left the key in etcd, and c1's acquire recorded no lease that would take it; on such an error, " +
					"delete the key again",
				Ops: []int{2, 1},
			},
		},
		{
			name: "a release that timed out, on a session",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 10.5, withOut(Output{Lease: 0x694d})),
				mk("c1", KindRelease, "/jobs", 11, never, gaveUp(16), errMsg("context deadline exceeded")),
				mk("c2", KindAcquire, "/jobs", 10.6, 20),
			), fault),
			want: finding{
				Message: "lock /jobs was acquired by nobody while c2 waited for it from 12.000s to 20.000s (8s, bound 3s), " +
					"after the last heal at 10.000s; its last holder c1's release, called at 11.000s, was given up at 16.000s " +
					"(context deadline exceeded); from 12.000s, a TTL (1s) after that call, the checker counted the lock free, " +
					"though the release had not answered: while c1's session (lease 694d) lives, a release whose outcome is " +
					"unknown (stuck on a dropped proposal, say) may have left the key in etcd; on such an error, close the " +
					"session or delete the key again",
				Ops: []int{2, 1},
			},
		},
		{
			name: "a waiter key orphaned by a Lock given up in the queue",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 10.5),
				mk("c1", KindRelease, "/jobs", 11, 11.2),
				mk("c2", KindAcquire, "/jobs", 10.6, never, gaveUp(12.6), errMsg("context deadline exceeded")),
				mk("c2", KindAcquire, "/jobs", 12.7, 20),
			), fault),
			want: finding{
				Message: "lock /jobs was acquired by nobody while c2 waited for it from 11.200s to 20.000s (8.8s, bound 3s, " +
					"over 2 attempts), after the last heal at 10.000s; its last holder c1 released at 11.200s; c2's acquire " +
					"called at 10.600s was given up at 12.600s (context deadline exceeded) while it waited, and c2 asked again: " +
					"given up while it waits, an acquire may leave its waiter key in etcd — an orphaned waiter key, which every " +
					"later acquire queues behind for as long as c2's session lives; on such an error, delete the waiter key " +
					"(or close the session)",
				Ops: []int{2, 3, 1, 2},
			},
		},
		{
			name: "a release still stuck when the history was taken",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 10.5),
				mk("c1", KindRelease, "/jobs", 11, never, gaveUp(20), errMsg(pendingError)),
				mk("c2", KindAcquire, "/jobs", 10.6, 20),
			), fault),
			want: finding{
				Message: "lock /jobs was acquired by nobody while c2 waited for it from 12.000s to 20.000s (8s, bound 3s), " +
					"after the last heal at 10.000s; its last holder c1's release, called at 11.000s, never returned; " +
					"from 12.000s, a TTL (1s) after that call, the checker counted the lock free, though the release had not " +
					"answered: a release whose outcome is unknown (stuck on a dropped proposal, say) may have left the key in " +
					"etcd, and c1's acquire recorded no lease that would take it; on such an error, delete the key again",
				Ops: []int{2, 1},
			},
		},
		{
			name: "a resign that timed out",
			h: withFaults(hist(
				mk("c1", KindCampaign, "/e", 10, 10.5),
				mk("c1", KindResign, "/e", 11, never, gaveUp(16)),
				mk("c2", KindCampaign, "/e", 10.6, 20),
			), fault),
			want: finding{
				Message: "election /e had no leader while c2 campaigned from 12.000s to 20.000s (8s, bound 3s), " +
					"after the last heal at 10.000s; its last leader c1's resign, called at 11.000s, was given up at 16.000s; " +
					"from 12.000s, a TTL (1s) after that call, the checker counted the election free, though the resign had not " +
					"answered: a resign whose outcome is unknown (stuck on a dropped proposal, say) may have left the key in " +
					"etcd, and c1's campaign recorded no lease that would take it; on such an error, delete the key again",
				Ops: []int{2, 1},
			},
		},
		{
			name: "a crashed holder",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 10.5),
				crash("c1", 11),
				mk("c2", KindAcquire, "/jobs", 10.6, 20),
			), fault),
			want: finding{
				Message: "lock /jobs was acquired by nobody while c2 waited for it from 12.000s to 20.000s (8s, bound 3s), " +
					"after the last heal at 10.000s; its last holder c1 crashed at 11.000s, so its lease (TTL 1s) should have " +
					"taken its key by 12.000s, but its acquire recorded no lease: either the key is on none, or it outlived " +
					"the lease (each new etcd leader renews every lease), or the waiters missed its deletion",
				Ops: []int{2, 1},
			},
		},
		{
			name: "a crashed holder whose key was on no lease",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 10.5),
				putAt("c1", "etcdsim/lock/jobs", 0, 10.2),
				crash("c1", 11),
				mk("c2", KindAcquire, "/jobs", 10.6, 20),
			), fault),
			want: finding{
				Message: "lock /jobs was acquired by nobody while c2 waited for it from 12.000s to 20.000s (8s, bound 3s), " +
					"after the last heal at 10.000s; its last holder c1 crashed at 11.000s, and its key etcdsim/lock/jobs was on no lease: " +
					"c1 wrote it so (op 1 at 10.200s), so nothing took the key when c1 died, and it stays in etcd until someone deletes it; " +
					"put the key on the session's lease",
				Ops: []int{3, 2},
			},
		},
		{
			name: "a candidate given up in the queue whose key was on no lease",
			h: withFaults(hist(
				mk("c1", KindCampaign, "/e", 10, 10.5),
				mk("c1", KindResign, "/e", 11, 11.2),
				mk("c2", KindCampaign, "/e", 10.6, never, gaveUp(12.6), errMsg("context deadline exceeded")),
				putAt("c2", "/e/c2", 0, 10.7),
				mk("c2", KindCampaign, "/e", 12.7, 20),
			), fault),
			want: finding{
				Message: "election /e had no leader while c2 campaigned from 11.200s to 20.000s (8.8s, bound 3s, over 2 attempts), " +
					"after the last heal at 10.000s; its last leader c1 resigned at 11.200s; c2's campaign called at 10.600s was given up " +
					"at 12.600s (context deadline exceeded) while it waited, and its key /e/c2 was on no lease (op 3 at 10.700s): " +
					"no session or lease will ever take it, so it stays in etcd, and every later campaign queues behind it, until someone deletes it; " +
					"put the key on the session's lease",
				Ops: []int{2, 4, 1, 2, 3},
			},
		},
		{
			name: "a crashed leader whose campaign recorded its lease",
			h: withFaults(hist(
				mk("c1", KindCampaign, "/e", 10, 10.5, withOut(Output{Lease: 0x694d})),
				crash("c1", 11),
				mk("c2", KindCampaign, "/e", 10.6, 20),
			), fault),
			want: finding{
				Message: "election /e had no leader while c2 campaigned from 12.000s to 20.000s (8s, bound 3s), " +
					"after the last heal at 10.000s; its last leader c1 crashed at 11.000s, so its lease 694d (TTL 1s) should have " +
					"taken its key by 12.000s: either the key outlived the lease (each new etcd leader renews every lease) " +
					"or the waiters missed its deletion",
				Ops: []int{2, 1},
			},
		},
		{
			name: "a release that returned",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 10.5),
				mk("c1", KindRelease, "/jobs", 11, 11.2),
				mk("c2", KindAcquire, "/jobs", 10.6, 20),
			), fault),
			want: finding{
				Message: "lock /jobs was acquired by nobody while c2 waited for it from 11.200s to 20.000s (8.8s, bound 3s), " +
					"after the last heal at 10.000s; its last holder c1 released at 11.200s: either that release left the key " +
					"in etcd or the waiters missed its deletion",
				Ops: []int{2, 1},
			},
		},
		{
			name: "acquires that may have succeeded unseen",
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, never, gaveUp(10.5), errMsg("context deadline exceeded")),
				mk("c4", KindAcquire, "/jobs", 10.1, never, gaveUp(10.6)),
				mk("c5", KindAcquire, "/jobs", 10.2, never, gaveUp(10.7)),
				mk("c6", KindAcquire, "/jobs", 10.3, never, gaveUp(10.8)),
				mk("c6", KindRelease, "/jobs", 10.9, 11), // c6 gave its maybe-lock back
				mk("c3", KindAcquire, "/jobs", 12, never, gaveUp(30)),
			), fault),
			want: finding{
				Message: "lock /jobs was acquired by nobody while c3 waited for it from 12.000s to 30.000s (18s, bound 3s), " +
					"after the last heal at 10.000s; c1's acquire called at 10.000s was given up at 10.500s (context deadline exceeded) " +
					"and c1 gave nothing back after it: if it took effect, c1 never learnt so and its session keeps the key; " +
					"c4's acquire called at 10.100s was given up at 10.600s and c4 gave nothing back after it: if it took effect, " +
					"c4 never learnt so and its session keeps the key; and 1 more acquire like them",
				Ops: []int{5, 0, 1},
			},
		},
		{
			name: "nothing the history records",
			h: withFaults(hist(
				mk("c2", KindAcquire, "/jobs", 11, 20),
			), fault),
			want: finding{
				Message: "lock /jobs was acquired by nobody while c2 waited for it from 11.000s to 20.000s (9s, bound 3s), " +
					"after the last heal at 10.000s; no client held the lock as far as the history shows, and nothing it " +
					"records explains the wait",
				Ops: []int{0},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Liveness(tc.h, opts)
			checkResult(t, res, VerdictViolation, "")
			if len(res.Violations) == 0 {
				return
			}
			v := res.Violations[0]
			if diff := cmp.Diff(tc.want, finding{v.Message, v.OpIDs()}); diff != "" {
				t.Errorf("first violation (-want +got):\n%s", diff)
			}
		})
	}
}
