package checker

import (
	"testing"
	"time"
)

// violationCase is a history a judge must find a violation of one kind in.
type violationCase struct {
	name  string
	judge Name
	opts  JudgeOptions
	h     History
	want  ViolationKind
}

// violationCases pin each finding to its kind: one small history per kind
// a judge reports, whose every violation, found through the judge's entry
// in the table, must be of that kind. TestJudges holds every judge to
// having one for each kind it reports.
var violationCases = []violationCase{
	{
		name:  "two holders",
		judge: CheckerMutualExclusion,
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c2", KindAcquire, "/jobs", 0.5, 2),
		),
		want: ViolationOverlap,
	},
	{
		name:  "a write from a client that held nothing",
		judge: CheckerMutualExclusion,
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c3", KindGuardedWrite, "/jobs", 1.5, 1.6, value("x")),
		),
		want: ViolationUnguardedWrite,
	},
	{
		name:  "a superseded holder's write",
		judge: CheckerMutualExclusion,
		opts:  JudgeOptions{ResourceOnly: true},
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c2", KindAcquire, "/jobs", 1.5, 4),
			mk("c1", KindGuardedWrite, "/jobs", 5, 5.1, value("a")),
		),
		want: ViolationStaleWrite,
	},
	{
		name:  "a set lost an add",
		judge: CheckerMutualExclusion,
		h: hist(
			mk("c1", KindSetAdd, "/set", 0, 1, value("1")),
			mk("c1", KindSetRead, "/set", 3, 4, withOut(Output{Values: []string{}})),
		),
		want: ViolationLostUpdate,
	},
	{
		name:  "a counter lost an increment",
		judge: CheckerMutualExclusion,
		h: hist(
			mk("c1", KindCounterIncr, "/n", 0, 1),
			mk("c1", KindCounterRead, "/n", 3, 3.5, withOut(Output{Count: 0})),
		),
		want: ViolationLostUpdate,
	},
	{
		name:  "a set element nobody added",
		judge: CheckerMutualExclusion,
		h: hist(
			mk("c1", KindSetRead, "/set", 3, 4, withOut(Output{Values: []string{"2"}})),
		),
		want: ViolationPhantomUpdate,
	},
	{
		name:  "a counter above its increments",
		judge: CheckerMutualExclusion,
		h: hist(
			mk("c1", KindCounterIncr, "/n", 0, 1),
			mk("c1", KindCounterRead, "/n", 3, 3.5, withOut(Output{Count: 2})),
		),
		want: ViolationPhantomUpdate,
	},
	{
		name:  "a smaller token handed out later",
		judge: CheckerFencing,
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1, granted(12)),
			mk("c1", KindRelease, "/jobs", 1, 2),
			mk("c2", KindAcquire, "/jobs", 3, 4, granted(9)),
			mk("c2", KindGuardedWrite, "/jobs", 5, 6, token(9)),
		),
		want: ViolationTokenRegression,
	},
	{
		name:  "a stale token accepted",
		judge: CheckerFencing,
		h: hist(
			mk("c2", KindGuardedWrite, "/jobs", 5, 6, token(12)),
			mk("c1", KindGuardedWrite, "/jobs", 7, 8, token(10)),
		),
		want: ViolationStaleAccepted,
	},
	{
		name:  "a lock not linearizable",
		judge: CheckerLockLinearizable,
		h: hist(
			mk("c1", KindAcquire, "/jobs", 0, 1),
			mk("c2", KindAcquire, "/jobs", 3, 4),
		),
		want: ViolationNotLinearizable,
	},
	{
		name:  "a register not linearizable",
		judge: CheckerRegisterLinearizable,
		h: hist(
			mk("c1", KindWrite, "x", 0, 1, value("1")),
			mk("c2", KindRead, "x", 2, 3, read("2")),
		),
		want: ViolationNotLinearizable,
	},
	{
		name:  "two leaders",
		judge: CheckerElectionSafety,
		h: hist(
			mk("c1", KindCampaign, "/e", 0, 1, term(5)),
			mk("c2", KindCampaign, "/e", 0.5, 3, term(8)),
		),
		want: ViolationTwoLeaders,
	},
	{
		name:  "a later leader with a smaller term",
		judge: CheckerElectionSafety,
		h: hist(
			mk("c1", KindCampaign, "/e", 0, 1, term(8)),
			mk("c1", KindResign, "/e", 2, 2.1),
			mk("c2", KindCampaign, "/e", 0.5, 3, term(5)),
		),
		want: ViolationTermRegression,
	},
	{
		name:  "an observer's term went back",
		judge: CheckerElectionSafety,
		h: hist(
			mk("o1", KindLeaderObserved, "/e", 1, 1.1, observed("", 8)),
			mk("o1", KindLeaderObserved, "/e", 2, 2.1, observed("", 5)),
		),
		want: ViolationObserverRegression,
	},
	{
		name:  "an observer saw the wrong leader",
		judge: CheckerElectionSafety,
		h: hist(
			mk("c1", KindCampaign, "/e", 0, 1, value("c1"), term(5)),
			mk("o1", KindLeaderObserved, "/e", 2, 2.1, observed("c2", 5)),
		),
		want: ViolationLeaderMismatch,
	},
	{
		name:  "a lock left free while wanted",
		judge: CheckerLiveness,
		opts:  JudgeOptions{TTL: time.Second, Bound: 3 * time.Second},
		h: withFaults(hist(
			mk("c1", KindAcquire, "/jobs", 10, 11),
			mk("c1", KindRelease, "/jobs", 11, 11.5),
			mk("c2", KindAcquire, "/jobs", 10.5, 20),
		), healed("partition(leader)", 5, 10)),
		want: ViolationStarvation,
	},
	{
		name:  "an election left without a leader",
		judge: CheckerLiveness,
		opts:  JudgeOptions{TTL: time.Second, Bound: 3 * time.Second},
		h: withFaults(hist(
			mk("c1", KindCampaign, "/e", 10, 11),
			mk("c1", KindResign, "/e", 11, 11.1),
			mk("c2", KindCampaign, "/e", 11, 20),
		), healed("partition(leader)", 5, 10)),
		want: ViolationLeaderless,
	},
	{
		name:  "a resolver that never converged",
		judge: CheckerDiscoveryConvergence,
		opts:  JudgeOptions{Bound: time.Second},
		h: hist(
			mk("ba", KindRegister, "/svc", 0, 0.1, value("a")),
			mk("r1", KindResolve, "/svc", 5, 5, endpoints()),
		),
		want: ViolationNotConverged,
	},
	{
		name:  "a stream that missed a change",
		judge: CheckerWatchGuarantees,
		h: hist(
			mk("c1", KindWrite, "/p/a", 1, 1.1, rev(10)),
			mk("c1", KindWrite, "/p/b", 2, 2.1, rev(11)),
			mk("c1", KindWrite, "/p/a", 3, 3.1, rev(12)),
			watchFrom("w1", "/p/", 10, 0.5, 20),
			event("w1", "/p/", "/p/a", 10, 1.2),
			event("w1", "/p/", "/p/a", 12, 3.2),
		),
		want: ViolationMissedEvent,
	},
	{
		name:  "an event delivered twice",
		judge: CheckerWatchGuarantees,
		h: hist(
			mk("c1", KindWrite, "/p/a", 1, 1.1, rev(10)),
			watchFrom("w1", "/p/", 10, 0.5, 2),
			event("w1", "/p/", "/p/a", 10, 1.2),
			event("w1", "/p/", "/p/a", 10, 1.3),
		),
		want: ViolationDuplicateEvent,
	},
	{
		name:  "revisions going back",
		judge: CheckerWatchGuarantees,
		h: hist(
			mk("c1", KindWrite, "/p/a", 1, 1.1, rev(10)),
			mk("c1", KindWrite, "/p/b", 2, 2.1, rev(11)),
			watchFrom("w1", "/p/", 10, 0.5, 3),
			event("w1", "/p/", "/p/b", 11, 2.2),
			event("w1", "/p/", "/p/a", 10, 2.3),
		),
		want: ViolationRevisionRegression,
	},
	{
		name:  "resuming past what was seen",
		judge: CheckerWatchGuarantees,
		h: hist(
			mk("c1", KindWrite, "/p/a", 1, 1.1, rev(10)),
			mk("c1", KindWrite, "/p/b", 2, 2.1, rev(11)),
			mk("w1", KindList, "/p/", 1.5, 1.6, rev(10)),
			watchFrom("w1", "/p/", 12, 2.5, 3),
			event("w1", "/p/", "/p/c", 12, 2.6),
		),
		want: ViolationResumeGap,
	},
	{
		name:  "watching again after ErrCompacted without listing",
		judge: CheckerWatchGuarantees,
		h: hist(
			mk("c1", KindWrite, "/p/a", 1, 1.1, rev(10)),
			watchFrom("w1", "/p/", 5, 0.5, 0.6, failed, withOut(Output{CompactRevision: 9})),
			watchFrom("w1", "/p/", 10, 0.9, 2),
			event("w1", "/p/", "/p/a", 10, 1.2),
		),
		want: ViolationNoRelist,
	},
	{
		name:  "a writer inside another writer's hold",
		judge: CheckerRWExclusion,
		h: hist(
			mk("c1", KindAcquire, "RW", 0, 1),
			mk("c2", KindAcquire, "RW", 0.5, 1.5),
			mk("c1", KindRelease, "RW", 2, 2.1),
			mk("c2", KindRelease, "RW", 3, 3.1),
		),
		want: ViolationOverlap,
	},
	{
		name:  "a dequeued item nobody enqueued",
		judge: CheckerQueueDelivery,
		h: hist(
			mk("c1", KindDequeue, "Q", 2, 3, read("zz")),
		),
		want: ViolationPhantomItem,
	},
	{
		name:  "an item dequeued twice",
		judge: CheckerQueueDelivery,
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("a")),
			mk("c1", KindDequeue, "Q", 1, 2, read("a")),
			mk("c2", KindDequeue, "Q", 1, 2.5, read("a")),
		),
		want: ViolationDuplicateItem,
	},
	{
		name:  "an item missing from a drained queue",
		judge: CheckerQueueDelivery,
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("a")),
			mk("c1", KindDequeue, "Q", 4, 5, empty),
		),
		want: ViolationLostItem,
	},
	{
		name:  "a lower priority served while a higher one waited",
		judge: CheckerQueueDelivery,
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("low"), prio(1)),
			mk("p1", KindEnqueue, "Q", 0, 1, value("high"), prio(0)),
			mk("c1", KindDequeue, "Q", 2, 3, read("low")),
			mk("c1", KindDequeue, "Q", 4, 5, read("high")),
			mk("c1", KindDequeue, "Q", 6, 7, empty),
		),
		want: ViolationPriorityInversion,
	},
	{
		name:  "an enter passed before the count arrived",
		judge: CheckerBarrierSafety,
		h: hist(
			mk("c1", KindEnter, "B", 0, 2, count(3)),
			mk("c2", KindEnter, "B", 1, 2, count(3)),
			mk("c3", KindEnter, "B", 3, 4, count(3)),
		),
		want: ViolationEarlyPass,
	},
	{
		name:  "an enter waiting on after everyone came",
		judge: CheckerBarrierSafety,
		opts:  JudgeOptions{Bound: 3 * time.Second},
		h: hist(
			mk("c1", KindEnter, "B", 0, 9, count(2)),
			mk("c2", KindEnter, "B", 1, 1.5, count(2)),
		),
		want: ViolationStuckWait,
	},
	{
		name:  "an audit off the total",
		judge: CheckerBankTotal,
		h: hist(
			tx("c1", 0, 1, 2, rs(r("a", "", 0), r("b", "", 0)), w("a", "-5 t1"), w("b", "5 t1")),
			tx("c3", 2, 3, 0, rs(r("a", "-5 t1", 2), r("b", "4 t1", 2))),
		),
		want: ViolationTotalChanged,
	},
	{
		name:  "a lost update between transactions",
		judge: CheckerSerializable,
		h: hist(
			tx("c1", 0, 1, 2, rs(r("a", "", 0)), w("a", "5 t1")),
			tx("c2", 0, 1, 3, rs(r("a", "", 0)), w("a", "7 t2")),
		),
		want: ViolationNotSerializable,
	},
	{
		name:  "a client's reads going back in revision",
		judge: CheckerMonotonicReads,
		h:     hist(rd("c1", "k", 0, 1, 9), rd("c1", "k", 2, 3, 7)),
		want:  ViolationRevisionBackwards,
	},
	{
		name:  "a write on a keep-alive answer taken after the revoke",
		judge: CheckerRevokedLease,
		h:     hist(revoke("c2", 7, 1, 1.1, 9), ka("c1", 7, 1.2, 1.2, time.Second, 8), gw("c1", 1.3)),
		want:  ViolationActedAfterRevoke,
	},
	{
		name:  "a key its registrar moved away from, still listed",
		judge: CheckerLeftBehind,
		opts:  JudgeOptions{TTL: time.Second},
		h:     hist(regAt("c1", "svc/a#1", 0, 0.1), regAt("c1", "svc/a#2", 1, 1.1), listAt(5, "svc/a#1", "svc/a#2")),
		want:  ViolationLeftBehind,
	},
	{
		name:  "a holder's session lost while the member its stream was on was dark and two stood",
		judge: CheckerSessionKept,
		h:     pinnedLoss(),
		want:  ViolationLostWithQuorum,
	},
	{
		name:  "a candidate refused permission on the election its user was granted",
		judge: CheckerPermissionHeld,
		h:     withUsers(hist(mk("c2", KindCampaign, "E2", 1, never, gaveUp(1.2), refused)), electionUsers()),
		want:  ViolationRefusedHeldPermission,
	},
	{
		name:  "a lock key written on no lease",
		judge: CheckerKeysOnLeases,
		h:     keysOnLeasesCases[1].h,
		want:  ViolationKeyOnNoLease,
	},
	{
		name:  "a key written on a lease already revoked",
		judge: CheckerKeysOnLeases,
		h:     keysOnLeasesCases[3].h,
		want:  ViolationKeyOnDeadLease,
	},
	{
		name:  "a key on a lease that outlived its process",
		judge: CheckerKeysOnLeases,
		h:     keysOnLeasesCases[4].h,
		want:  ViolationKeyOutlivedWriter,
	},
	{
		name:  "a member serving keep-alive loops its streams are gone from",
		judge: CheckerMemberResources,
		h: withFaults(hist(
			mk("m0", KindMemberSample, "", 5, 5, withOut(Output{Values: MemberResourceFigures(1, 40, -1)})),
		), FaultEvent{Name: "reset(client c1)", Action: "reset", Targets: []string{"c1"}, Start: at(1), End: at(2), Healed: true}),
		want: ViolationKeepAliveLeak,
	},
}

// TestViolationKinds runs violationCases.
func TestViolationKinds(t *testing.T) {
	for _, tc := range violationCases {
		t.Run(tc.name, func(t *testing.T) {
			res := RunJudge(tc.judge, tc.h, tc.opts)
			checkResult(t, res, VerdictViolation, "")
			for _, v := range res.Violations {
				if v.Kind != tc.want {
					t.Errorf("violation of kind %q, want %q: %s", v.Kind, tc.want, v.Message)
				}
			}
		})
	}
}
