package checker

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// aimed is a healed fault of action aimed at client, from start to end
// seconds, named as the faults package names it.
func aimed(action, client string, start, end float64) FaultEvent {
	f := healed(action+"(client "+client+")", start, end)
	f.Action, f.Targets = action, []string{client}
	return f
}

// withOp adds op to h, numbered after the rest.
func withOp(h History, op Operation) History {
	op.ID = len(h.Ops)
	h.Ops = append(h.Ops, op)
	return h
}

func lease(id int64) mod { return func(op *Operation) { op.Output.Lease = id } }

// TestLeaseExpirySentences: when the faults prove a holder's lease was gone
// on the server before it acted, the overlap, two-leaders and stale-write
// sentences say by how much and what would have stopped it; when they do
// not prove it, the sentences say nothing of the lease.
func TestLeaseExpirySentences(t *testing.T) {
	const (
		expired = "c1 went on holding it for 2.5s after its lease 694d had expired on the server " +
			"(by 2.000s: TTL 1s, and no renewal could reach the server once "
		lateDoneTail = "; whatever told it to stop came too late: if it stops on concurrency.Session.Done, that learns of expiry late, since clientv3's lessor " +
			"checks keep-alive deadlines about once a second, and a lease guard that keeps its own deadline from the grant " +
			"and renewal responses (lease) would stop it before the server can expire the lease; if it already holds such a guard, " +
			"a step of the hold went on without checking the guard's Done (or Deadline) first"
		pausedTail = "no check in the holder can catch a pause between its last check and its next step; " +
			"only a fencing token the resource checks refuses the late write"
	)
	// c1 holds L from 0.5s, c2 acquires at 3s, c1 releases at 4.5s.
	overlapping := func(faults ...FaultEvent) History {
		h := withFaults(hist(
			mk("c1", KindAcquire, "L", 0, 0.5, lease(0x694d)),
			mk("c2", KindAcquire, "L", 0.2, 3),
			mk("c1", KindRelease, "L", 4.5, 4.6),
			mk("c2", KindRelease, "L", 5, 5.1),
		), faults...)
		h.SessionTTL = time.Second
		return h
	}
	// c1 holds L from 0.5s and reads the counter at readAt; c2, called at
	// 0.6s, acquires at 3s and writes; c1 writes at 4.5s.
	staleWrite := func(readAt float64, faults ...FaultEvent) History {
		h := withFaults(hist(
			mk("c1", KindAcquire, "L", 0, 0.5, lease(0x694d)),
			mk("c1", KindCounterRead, "L", readAt, readAt+0.01),
			mk("c2", KindAcquire, "L", 0.6, 3),
			mk("c2", KindGuardedWrite, "L", 3.1, 3.2, value("2")),
			mk("c1", KindGuardedWrite, "L", 4.5, 4.51, value("1")),
		), faults...)
		h.SessionTTL = time.Second
		return h
	}
	const staleMsg = "the resource guarded by lock L accepted c1's write of \"1\" at 4.500s although c2 had acquired the lock at 3.000s, after c1 acquired it at 0.500s"
	const overlapMsg = "c2 acquired lock L at 3.000s while c1 held it since 0.500s; c1 released at 4.500s"
	tests := []struct {
		name  string
		check func(History) Result
		h     History
		kind  ViolationKind
		want  string
	}{
		{
			name:  "a holder isolated past its TTL holds on",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h:     overlapping(aimed("isolate", "c1", 1, 6)),
			kind:  ViolationOverlap,
			want:  overlapMsg + "; " + expired + "isolate(client c1) cut c1 off at 1.000s)" + lateDoneTail,
		},
		{
			name:  "a holder paused past its TTL cannot let go",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h:     overlapping(aimed("pause", "c1", 1, 4.4)),
			kind:  ViolationOverlap,
			want: overlapMsg + "; " + expired + "pause(client c1) cut c1 off at 1.000s); c1 was paused until 4.400s and could not let go: " +
				pausedTail,
		},
		{
			name:  "a revoked lease",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h: func() History {
				f := aimed("revoke-lease", "c1", 2, 2)
				return overlapping(f)
			}(),
			kind: ViolationOverlap,
			want: overlapMsg + "; c1 went on holding it for 2.5s after its lease 694d was revoked on the server (at 2.000s, by revoke-lease(client c1))" +
				lateDoneTail,
		},
		{
			name:  "a holder that never released",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h: func() History {
				h := overlapping(aimed("isolate", "c1", 1, 6))
				h.Ops = h.Ops[:2]
				return h
			}(),
			kind: ViolationOverlap,
			want: "c2 acquired lock L at 3.000s while c1 held it since 0.500s; c1 never released; c1 went on holding it to the end of the run " +
				"after its lease 694d had expired on the server (by 2.000s: TTL 1s, and no renewal could reach the server once " +
				"isolate(client c1) cut c1 off at 1.000s)" + lateDoneTail,
		},
		{
			name:  "a lock holder whose recipe signalled the loss late",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h: func() History {
				h := overlapping(aimed("isolate", "c1", 1, 6))
				h = withOp(h, mk("c1", KindLost, "L", 3.5, 3.5))
				return h
			}(),
			kind: ViolationOverlap,
			want: overlapMsg + "; " + expired + "isolate(client c1) cut c1 off at 1.000s); the recipe signalled the loss only at 3.500s " +
				"(its holder's Done closed), 1.5s after the server had ended the lease: " + lateDoneTail[2:],
		},
		{
			name:  "a lock holder whose recipe never signalled the loss",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h: func() History {
				h := overlapping(aimed("isolate", "c1", 1, 6))
				h.Ops[2].Input.Value = ReleaseDoneOpen
				return h
			}(),
			kind: ViolationOverlap,
			want: overlapMsg + "; " + expired + "isolate(client c1) cut c1 off at 1.000s); the recipe never signalled the loss while it held: " +
				"its holder's Done was still open when the workload released the lock at 4.500s, 2.5s after the server had ended the lease; a holder must close Done once its lease " +
				"can no longer be known to be alive — a lease guard of its own, or the session's Done — or the library gives its caller no way to stop in time",
		},
		{
			name:  "a lock holder that was told in time",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h: func() History {
				h := overlapping(aimed("isolate", "c1", 1, 6))
				h = withOp(h, mk("c1", KindLost, "L", 1.9, 1.9))
				return h
			}(),
			kind: ViolationOverlap,
			want: overlapMsg + "; " + expired + "isolate(client c1) cut c1 off at 1.000s)" + lateDoneTail,
		},
		{
			name:  "a write by a holder whose recipe signalled the loss after it",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{ResourceOnly: true}) },
			h: func() History {
				h := staleWrite(4.4, aimed("isolate", "c1", 1, 6))
				h = withOp(h, mk("c1", KindLost, "L", 5, 5))
				return h
			}(),
			kind: ViolationStaleWrite,
			want: staleMsg + "; c1 wrote 2.5s after its lease 694d had expired on the server (by 2.000s: TTL 1s, and no renewal " +
				"could reach the server once isolate(client c1) cut c1 off at 1.000s); the recipe signalled the loss only at 5.000s " +
				"(its holder's Done closed), 3s after the server had ended the lease: " + lateDoneTail[2:],
		},
		{
			name:  "a leader whose Done closed late",
			check: func(h History) Result { return ElectionSafety(h, ElectionOptions{}) },
			h: func() History {
				h := withFaults(hist(
					mk("c1", KindCampaign, "E", 0, 0.5, lease(0x694d)),
					mk("c2", KindCampaign, "E", 0.2, 1.44),
					mk("c1", KindResign, "E", 2.1, 2.1), // Done closed, while c1 was paused
				), aimed("pause", "c1", 0.5, 3.5))
				h.SessionTTL = time.Second
				return h
			}(),
			kind: ViolationTwoLeaders,
			want: "c2 became leader of election E at 1.440s while c1 led it since 0.500s; c1 resigned at 2.100s; " +
				"c1 went on leading for 600ms after its lease 694d had expired on the server (by 1.500s: TTL 1s, and no renewal " +
				"could reach the server once pause(client c1) cut c1 off at 0.500s)" + lateDoneTail,
		},
		{
			name:  "a leader whose recipe never closed Done",
			check: func(h History) Result { return ElectionSafety(h, ElectionOptions{}) },
			h: func() History {
				h := withFaults(hist(
					mk("c1", KindCampaign, "E", 0, 0.5, lease(0x694d)),
					mk("c2", KindCampaign, "E", 0.2, 1.44),
					mk("c1", KindResign, "E", 3.6, 3.7, value(ResignAsked)), // the workload's, after the pause
				), aimed("pause", "c1", 0.5, 3.5))
				h.SessionTTL = time.Second
				return h
			}(),
			kind: ViolationTwoLeaders,
			want: "c2 became leader of election E at 1.440s while c1 led it since 0.500s; c1 resigned at 3.600s; " +
				"c1 went on leading for 2.1s after its lease 694d had expired on the server (by 1.500s: TTL 1s, and no renewal " +
				"could reach the server once pause(client c1) cut c1 off at 0.500s); " + neverSignalled,
		},
		{
			name:  "a write after a pause between the check and the write",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{ResourceOnly: true}) },
			h:     staleWrite(0.6, aimed("pause", "c1", 1, 4.4)),
			kind:  ViolationStaleWrite,
			want: staleMsg + "; c1 wrote 2.5s after its lease 694d had expired on the server (by 2.000s: TTL 1s, and no renewal " +
				"could reach the server once pause(client c1) cut c1 off at 1.000s); its last step before the write was at " +
				"0.600s, before the pause ended at 4.400s: " + pausedTail,
		},
		{
			name:  "a write by a holder that checked after its lease expired",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{ResourceOnly: true}) },
			h:     staleWrite(4.4, aimed("isolate", "c1", 1, 6)),
			kind:  ViolationStaleWrite,
			want: staleMsg + "; c1 wrote 2.5s after its lease 694d had expired on the server (by 2.000s: TTL 1s, and no renewal " +
				"could reach the server once isolate(client c1) cut c1 off at 1.000s)" + lateDoneTail,
		},
		{
			name:  "a leader kill during the cut may have extended the lease",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h: overlapping(aimed("isolate", "c1", 1, 6),
				FaultEvent{Name: "kill(leader)", Action: "kill", Targets: []string{"m0"}, Start: at(1.5), End: at(2.5), Healed: true}),
			kind: ViolationOverlap,
			want: overlapMsg,
		},
		{
			name:  "a cut shorter than the TTL",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h:     overlapping(aimed("isolate", "c1", 1, 1.8)),
			kind:  ViolationOverlap,
			want:  overlapMsg,
		},
		{
			name:  "a cut aimed at another client",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h:     overlapping(aimed("isolate", "c3", 1, 6)),
			kind:  ViolationOverlap,
			want:  overlapMsg,
		},
		{
			name:  "a lease revoke that did not apply to a holder without a lease",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h: func() History {
				f := aimed("revoke-lease", "c1", 2, 2)
				f.NotApplicable = `client c1: lock recipe "mine": its holder has no Lease method (lock.Leaser)`
				h := overlapping(f)
				h.Ops[0].Output.Lease = 0
				return h
			}(),
			kind: ViolationOverlap,
			want: overlapMsg,
		},
		{
			name:  "no session TTL recorded",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{}) },
			h: func() History {
				h := overlapping(aimed("isolate", "c1", 1, 6))
				h.SessionTTL = 0
				return h
			}(),
			kind: ViolationOverlap,
			want: overlapMsg,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.check(tc.h)
			checkResult(t, res, VerdictViolation, "")
			var got []string
			for _, v := range res.Violations {
				if v.Kind == tc.kind {
					got = append(got, v.Message)
				}
			}
			if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
				t.Errorf("%s sentences (-want +got):\n%s", tc.kind, diff)
			}
		})
	}
}
