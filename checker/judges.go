package checker

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/internal/suggest"
)

// Name names one of the package's checkers — a judge — as scenarios,
// expectations and result files spell it: "mutual-exclusion", ....
// Result.Checker carries it as a plain string, since a combined result
// carries the combination's name there instead.
type Name string

// The checkers' names, as Result.Checker carries them.
const (
	CheckerMutualExclusion      Name = "mutual-exclusion"
	CheckerFencing              Name = "fencing"
	CheckerLockLinearizable     Name = "lock-linearizable"
	CheckerRegisterLinearizable Name = "register-linearizable"
	CheckerElectionSafety       Name = "election-safety"
	CheckerLiveness             Name = "liveness"
	CheckerDiscoveryConvergence Name = "discovery-convergence"
	CheckerWatchGuarantees      Name = "watch-guarantees"
	CheckerRWExclusion          Name = "rw-exclusion"
	CheckerQueueDelivery        Name = "queue-delivery"
	CheckerBarrierSafety        Name = "barrier-safety"
	CheckerBankTotal            Name = "bank-total"
	CheckerSerializable         Name = "serializable"
	CheckerMonotonicReads       Name = "monotonic-reads"
	CheckerRevokedLease         Name = "revoked-lease"
	CheckerLeftBehind           Name = "left-behind"
	CheckerSessionKept          Name = "session-kept"
	CheckerPermissionHeld       Name = "permission-held"
	CheckerKeysOnLeases         Name = "keys-on-leases"
	CheckerMemberResources      Name = "member-resources"
)

// JudgeOptions are what a judge is run with when a scenario names it: the
// few settings a scenario's check carries. Each judge reads the ones its
// own options have and ignores the rest; the zero value gives every judge
// its defaults.
type JudgeOptions struct {
	// TTL is the clients' session TTL (Liveness, DiscoveryConvergence,
	// LeftBehind, SessionKept, KeysOnLeases). 0 means History.SessionTTL,
	// or (but for SessionKept, which then cannot judge) 60 s if that is 0
	// too. It is what the scenario assumed: a history that records the
	// grants of its recipe's leases is judged with the TTL they were
	// granted instead (the largest, if several; see ObservedTTLs and
	// TTLNote), in TTL and in History.SessionTTL alike.
	TTL time.Duration
	// Bound is the liveness, convergence or stuck-wait bound (Liveness,
	// DiscoveryConvergence, BarrierSafety). 0 means the checker's default.
	Bound time.Duration
	// ResourceOnly judges mutual exclusion by the guarded resource alone
	// (MutexOptions.ResourceOnly).
	ResourceOnly bool
	// ByChecks judges mutual exclusion by the holders' checks
	// (MutexOptions.ByChecks).
	ByChecks bool
}

// Judge is one of the package's checkers as a value: its name, what it
// reads and reports, and how to run it. Judges lists them all; a scenario
// names one, and LookupJudge finds it.
type Judge struct {
	// Name is the judge's name, as Result.Checker carries it.
	Name Name
	// Reads are the operation kinds it reads; it ignores every other.
	Reads []Kind
	// Reports are the kinds of violation it reports.
	Reports []ViolationKind
	// Summary says in a sentence what it checks, as the package doc
	// lists it beside the judge's name.
	Summary string
	// Run runs it on a history.
	Run func(History, JudgeOptions) Result
	// Lin, for a linearizability judge, runs it and returns the whole
	// search, which porcupine can draw (LinResult.Visualize); Run returns
	// its Result with default LinOptions. nil for every other judge.
	Lin func(History, LinOptions) LinResult
}

// judges is the table, in the order the package documents the checkers.
// Each runs on the TTL the recipe was granted (observedTTL).
var judges = observedTTL([]Judge{
	{
		Name:    CheckerMutualExclusion,
		Reads:   []Kind{KindAcquire, KindRelease, KindLost, KindCrash, KindGuardedWrite, KindSetAdd, KindSetRead, KindCounterIncr, KindCounterRead},
		Reports: []ViolationKind{ViolationOverlap, ViolationUnguardedWrite, ViolationStaleWrite, ViolationLostUpdate, ViolationPhantomUpdate},
		Summary: "lock holds never overlap; the guarded resource accepts writes only from the holder; no lost updates (Jepsen's lock-set, or a counter).",
		Run: func(h History, o JudgeOptions) Result {
			return MutualExclusion(h, MutexOptions{ResourceOnly: o.ResourceOnly, ByChecks: o.ByChecks})
		},
	},
	{
		Name:    CheckerFencing,
		Reads:   []Kind{KindAcquire, KindLost, KindGuardedWrite},
		Reports: []ViolationKind{ViolationTokenRegression, ViolationStaleAccepted},
		Summary: "accepted fencing tokens increase; stale writes are rejected and counted.",
		Run:     func(h History, _ JudgeOptions) Result { return Fencing(h, FencingOptions{}) },
	},
	linJudge(CheckerLockLinearizable, LockLinearizable, []Kind{KindAcquire, KindRelease, KindCrash},
		"the lock operations against a mutex model, with porcupine's search, per lock name."),
	linJudge(CheckerRegisterLinearizable, RegisterLinearizable, []Kind{KindRead, KindWrite, KindCAS, KindDelete},
		"reads, writes, compare-and-sets and deletes against a register per key, with porcupine's search, using etcd revisions where recorded."),
	{
		Name:    CheckerElectionSafety,
		Reads:   []Kind{KindCampaign, KindResign, KindCrash, KindLeaderObserved},
		Reports: []ViolationKind{ViolationTwoLeaders, ViolationTermRegression, ViolationObserverRegression, ViolationLeaderMismatch},
		Summary: "at most one leader at a time; terms increase; no observer sees them go backwards.",
		Run:     func(h History, _ JudgeOptions) Result { return ElectionSafety(h, ElectionOptions{}) },
	},
	{
		Name:    CheckerLiveness,
		Reads:   []Kind{KindAcquire, KindRelease, KindLost, KindRLock, KindRUnlock, KindCampaign, KindResign, KindCrash, KindPut, KindDeleteRange},
		Reports: []ViolationKind{ViolationStarvation, ViolationLeaderless},
		Summary: "after the last heal, waiting clients get the lock and some candidate leads, within a bound.",
		Run: func(h History, o JudgeOptions) Result {
			return Liveness(h, LivenessOptions{TTL: o.TTL, Bound: o.Bound})
		},
	},
	{
		Name:    CheckerDiscoveryConvergence,
		Reads:   []Kind{KindRegister, KindDeregister, KindResolve, KindRPC, KindCrash},
		Reports: []ViolationKind{ViolationNotConverged},
		Summary: "resolvers converge on the live registered endpoints within a bound; staleness; RPCs sent to dead backends.",
		Run: func(h History, o JudgeOptions) Result {
			return DiscoveryConvergence(h, DiscoveryOptions{TTL: o.TTL, Bound: o.Bound})
		},
	},
	{
		Name:    CheckerWatchGuarantees,
		Reads:   []Kind{KindWrite, KindCAS, KindDelete, KindWatch, KindWatchEvent, KindList},
		Reports: []ViolationKind{ViolationMissedEvent, ViolationDuplicateEvent, ViolationRevisionRegression, ViolationResumeGap, ViolationNoRelist},
		Summary: "watch events in order, without duplicates or gaps; re-listing after ErrCompacted.",
		Run:     func(h History, _ JudgeOptions) Result { return WatchGuarantees(h, WatchOptions{}) },
	},
	{
		Name:    CheckerRWExclusion,
		Reads:   []Kind{KindAcquire, KindRelease, KindRLock, KindRUnlock, KindCrash},
		Reports: []ViolationKind{ViolationOverlap},
		Summary: "a read-write lock's writer shares its hold with nobody; readers share theirs.",
		Run:     func(h History, _ JudgeOptions) Result { return RWExclusion(h, RWOptions{}) },
	},
	{
		Name:    CheckerQueueDelivery,
		Reads:   []Kind{KindEnqueue, KindDequeue, KindPut},
		Reports: []ViolationKind{ViolationPhantomItem, ViolationDuplicateItem, ViolationLostItem, ViolationPriorityInversion},
		Summary: "every item dequeued was enqueued, none twice, none lost once a drain saw the queue empty; higher priorities served first.",
		Run:     func(h History, _ JudgeOptions) Result { return QueueDelivery(h, QueueOptions{}) },
	},
	{
		Name:    CheckerBarrierSafety,
		Reads:   []Kind{KindEnter, KindLeave, KindHold, KindLift, KindWait, KindCrash},
		Reports: []ViolationKind{ViolationEarlyPass, ViolationStuckWait},
		Summary: "nobody passes a double barrier before its count arrived, or a plain barrier while it is held; nobody stays stuck at one that should have let them through.",
		Run: func(h History, o JudgeOptions) Result {
			return BarrierSafety(h, BarrierOptions{Bound: o.Bound})
		},
	},
	{
		Name:    CheckerBankTotal,
		Reads:   []Kind{KindTxn},
		Reports: []ViolationKind{ViolationTotalChanged},
		Summary: "every audit of the accounts, a transaction that read them all, finds the total unchanged.",
		Run:     func(h History, _ JudgeOptions) Result { return BankTotal(h, BankOptions{}) },
	},
	{
		Name:    CheckerSerializable,
		Reads:   []Kind{KindTxn},
		Reports: []ViolationKind{ViolationNotSerializable},
		Summary: "the committed transactions' reads and writes have a serial order (no G0, G1 or G2 cycle, no aborted read).",
		Run:     func(h History, _ JudgeOptions) Result { return Serializable(h, SerializableOptions{}) },
	},
	{
		Name:    CheckerMonotonicReads,
		Reads:   []Kind{KindRead, KindCrash},
		Reports: []ViolationKind{ViolationRevisionBackwards},
		Summary: "a client's reads never answer at a revision below an earlier read's.",
		Run:     func(h History, _ JudgeOptions) Result { return MonotonicReads(h, MonotonicOptions{}) },
	},
	{
		Name:    CheckerRevokedLease,
		Reads:   []Kind{KindKeepAlive, KindRevoke, KindAcquire, KindCampaign, KindRegister, KindRLock, KindSession, KindGuardedWrite, KindCounterIncr, KindSetAdd, KindWrite, KindCAS, KindDelete, KindTxn, KindCrash},
		Reports: []ViolationKind{ViolationActedAfterRevoke},
		Summary: "no client acts on a keep-alive answer it took after its lease had been revoked.",
		Run:     func(h History, _ JudgeOptions) Result { return RevokedLease(h, RevokedLeaseOptions{}) },
	},
	{
		Name:    CheckerLeftBehind,
		Reads:   []Kind{KindRegister, KindDeregister, KindList, KindCrash},
		Reports: []ViolationKind{ViolationLeftBehind},
		Summary: "no registration stays in the registry under a key its registrar no longer keeps.",
		Run: func(h History, o JudgeOptions) Result {
			return LeftBehind(h, LeftBehindOptions{TTL: o.TTL, Bound: o.Bound})
		},
	},
	{
		Name:    CheckerSessionKept,
		Reads:   []Kind{KindAcquire, KindLost, KindCampaign, KindResign, KindCrash},
		Reports: []ViolationKind{ViolationLostWithQuorum},
		Summary: "no process loses its session while it is alive and a quorum of the members it talks to stands.",
		Run: func(h History, o JudgeOptions) Result {
			return SessionKept(h, SessionKeptOptions{TTL: o.TTL})
		},
	},
	{
		Name:    CheckerPermissionHeld,
		Reads:   permissionKinds,
		Reports: []ViolationKind{ViolationRefusedHeldPermission},
		Summary: "with auth on, etcd refuses no client's call \"permission denied\" for keys its user was granted.",
		Run:     func(h History, _ JudgeOptions) Result { return PermissionHeld(h, PermissionOptions{}) },
	},
	{
		Name:    CheckerKeysOnLeases,
		Reads:   []Kind{KindPut, KindLeaseGrant, KindRevoke, KindCrash},
		Reports: []ViolationKind{ViolationKeyOnNoLease, ViolationKeyOnDeadLease, ViolationKeyOutlivedWriter},
		Summary: "every key the recipe writes is on a live lease, and goes when the process that kept the lease is gone.",
		Run: func(h History, o JudgeOptions) Result {
			return KeysOnLeases(h, KeysOnLeasesOptions{TTL: o.TTL, Bound: o.Bound})
		},
	},
	{
		Name:    CheckerMemberResources,
		Reads:   []Kind{KindMemberSample},
		Reports: []ViolationKind{ViolationKeepAliveLeak},
		Summary: "once clients are gone, no member runs more lease keep-alive loops than it has streams open, beyond a slack.",
		Run:     func(h History, _ JudgeOptions) Result { return MemberResources(h, MemberResourcesOptions{}) },
	},
})

// observedTTL makes each judge of js read the TTL the recipe's leases were
// granted, where the history records it, in place of the assumed one
// (withObservedTTL), and end each of its sentences with the faults in
// force at the violation's instant (withFaultsInForce). A judge that
// reads none of CallKinds is given the history without its Calls, so it
// neither walks nor validates what it does not read.
func observedTTL(js []Judge) []Judge {
	for i := range js {
		run := js[i].Run
		calls := slices.ContainsFunc(js[i].Reads, Kind.IsCall)
		js[i].Run = func(h History, o JudgeOptions) Result {
			h, o = withObservedTTL(h, o)
			if !calls {
				h.Calls = nil
			}
			return withFaultsInForce(&h, run(h, o))
		}
	}
	return js
}

// linJudge makes the judge of a linearizability checker.
func linJudge(name Name, lin func(History, LinOptions) LinResult, reads []Kind, summary string) Judge {
	return Judge{
		Name:    name,
		Reads:   reads,
		Reports: []ViolationKind{ViolationNotLinearizable},
		Summary: summary,
		Run:     func(h History, _ JudgeOptions) Result { return lin(h, LinOptions{}).Result },
		Lin:     lin,
	}
}

// Judges returns every judge of the package, in the order its doc lists
// them. The slice is the caller's own.
func Judges() []Judge {
	out := slices.Clone(judges)
	for i := range out {
		out[i].Reads = slices.Clone(out[i].Reads)
		out[i].Reports = slices.Clone(out[i].Reports)
	}
	return out
}

// LookupJudge returns the judge called name, and false if there is none.
func LookupJudge(name Name) (Judge, bool) {
	for _, j := range judges {
		if j.Name == name {
			return j, true
		}
	}
	return Judge{}, false
}

// JudgeNames returns the judges' names, in the order Judges lists them.
func JudgeNames() []Name {
	names := make([]Name, len(judges))
	for i, j := range judges {
		names[i] = j.Name
	}
	return names
}

// RunJudge runs the judge called name on h. A name that is no judge's
// gives the verdict invalid, with a summary that names the judges there
// are, the nearest first.
func RunJudge(name Name, h History, opts JudgeOptions) Result {
	j, ok := LookupJudge(name)
	if !ok {
		return newReport(name, 0).invalid(noJudge(name))
	}
	return j.Run(h, opts)
}

// noJudge says that name is no judge's, naming those there are, the
// nearest first.
func noJudge(name Name) error {
	return fmt.Errorf("no checker %q (want one of %s)", name, strings.Join(nearestJudges(string(name)), ", "))
}

// nearestJudges returns the judges' names, the nearest to want first.
func nearestJudges(want string) []string {
	names := make([]string, len(judges))
	for i, j := range judges {
		names[i] = string(j.Name)
	}
	return suggest.Nearest(want, names)
}
