package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// exploreFamily is what the explorer knows of a family: the operations
// that mark where a fault lands against the workload, whom "the holder"
// is, and the judges a correct recipe of the family must pass under each
// loss of the fault table.
type exploreFamily struct {
	family string
	// start, mid and end are the operation kinds that begin a hold (or
	// term, or registration), fall in its middle, and end it. mid "" means
	// the family has no operation inside a hold: a "hold" phase lands at
	// the start.
	start, mid, end checker.Kind
	// holder is the target that resolves to whoever holds key now; nil
	// means the family has no holder and a drawn client stands for it.
	holder func(key string) faults.Target
	// judges are the checks of a draw under loss l, with liveness bound
	// bound after the last heal; foreign says a fault wrote the recipe's
	// keys from outside.
	judges func(l loss, bound time.Duration, foreign bool) []Check
	// writes says the family takes Workload.Writes.
	writes bool
	// noForeign says faults that write the recipe's keys from outside
	// (put, delete) are not drawn: the family has no judge that applies
	// to keys it did not write.
	noForeign bool
	// unpinned says the family's clients keep no stream open to one
	// member (no lease, no watch), so "the member a client is pinned to"
	// resolves to nobody: a member is drawn instead.
	unpinned bool
	// minLatency is the least network latency of every draw: the
	// family's recipes name keys by the clock, which on the virtual clock
	// stands still between requests that take no time (rwLatency).
	minLatency time.Duration
}

// exploreFamilies are the families the explorer searches. A family not
// here is refused with the list.
var exploreFamilies = []exploreFamily{
	{
		family: FamilyLock, start: checker.KindAcquire, mid: checker.KindGuardedWrite, end: checker.KindRelease,
		holder: faults.LockHolder, writes: true,
		judges: func(l loss, bound time.Duration, foreign bool) []Check {
			out := []Check{{Name: checker.CheckerMutualExclusion, ResourceOnly: l > signalsLoss}, {Name: checker.CheckerFencing}}
			if l == keepsAll {
				out = append(out, Check{Name: checker.CheckerLockLinearizable})
			}
			if !foreign {
				out = append(out, Check{Name: checker.CheckerLiveness, Bound: Duration(bound)})
			}
			return out
		},
	},
	{
		family: FamilyElection, start: checker.KindCampaign, mid: checker.KindGuardedWrite, end: checker.KindResign,
		holder: faults.ElectionLeader,
		// Election safety judges who led when, allowing a leader cut off,
		// paused or crashed until its lease could expire (ElectionSafety
		// judges it under pauses and crashes alike); a term that ends on
		// the server at once — a lease revoked, a key deleted from outside
		// — leaves only the fencing tokens to judge.
		judges: func(l loss, bound time.Duration, foreign bool) []Check {
			out := []Check{{Name: checker.CheckerElectionSafety}, {Name: checker.CheckerFencing}}
			if l >= endsAtOnce {
				out = out[1:]
			}
			if !foreign {
				out = append(out, Check{Name: checker.CheckerLiveness, Bound: Duration(bound)})
			}
			return out
		},
	},
	{
		family: FamilyDiscovery, start: checker.KindRegister, end: checker.KindDeregister, noForeign: true,
		judges: func(_ loss, bound time.Duration, _ bool) []Check {
			return []Check{{Name: checker.CheckerDiscoveryConvergence, Bound: Duration(bound)}}
		},
	}, {
		// A read-write lock guards no resource: exclusion is judged by
		// who held when, which a holder stopped past its lease (a pause,
		// a crash, a slow link) can break through no fault of its recipe;
		// under such a fault only liveness is judged (docs/explore.md).
		// Keys written from outside are not drawn: nothing but who held
		// when could judge them.
		family: FamilyRWMutex, start: checker.KindAcquire, mid: checker.KindGuardedWrite, end: checker.KindRelease,
		holder: faults.LockHolder, minLatency: rwLatency.D(), noForeign: true,
		judges: func(l loss, bound time.Duration, _ bool) []Check {
			var out []Check
			if l <= signalsLoss {
				out = append(out, Check{Name: checker.CheckerRWExclusion})
			}
			return append(out, Check{Name: checker.CheckerLiveness, Bound: Duration(bound)})
		},
	},
	{
		// A queue delivers every item once whatever the faults: the
		// lost-claim schedule of QueueSafety loses answers, and a correct
		// queue still delivers.
		family: FamilyQueue, start: checker.KindEnqueue, end: checker.KindDequeue, noForeign: true, unpinned: true, minLatency: queueLatency.D(),
		judges: func(loss, time.Duration, bool) []Check {
			return []Check{{Name: checker.CheckerQueueDelivery}}
		},
	},
	{
		// A double barrier lets nobody leave before all have entered, and
		// a participant whose lease ends lets the others go: judged in full
		// under every loss. etcd's names its waiter keys by the clock: at
		// no latency two clients make the same name, and the run's clock
		// stood still (three control runs froze).
		family: FamilyBarrier, start: checker.KindEnter, end: checker.KindLeave, noForeign: true, unpinned: true,
		minLatency: time.Millisecond,
		judges: func(loss, time.Duration, bool) []Check {
			return []Check{{Name: checker.CheckerBarrierSafety}}
		},
	},
	{
		// A register keeps linearizability and its watch's guarantees
		// through every fault of the vocabulary (RegisterSafety).
		family: FamilyRegister, start: checker.KindWrite, mid: checker.KindRead, end: checker.KindDelete, noForeign: true, unpinned: true,
		minLatency: leasingLatency.D(),
		judges: func(loss, time.Duration, bool) []Check {
			return []Check{{Name: checker.CheckerRegisterLinearizable}, {Name: checker.CheckerWatchGuarantees}}
		},
	},
	{
		// A transaction keeps the books and is serializable through every
		// fault (STMSafety).
		family: FamilySTM, start: checker.KindTxn, end: checker.KindTxn, noForeign: true, unpinned: true, minLatency: time.Millisecond,
		judges: func(loss, time.Duration, bool) []Check {
			return []Check{{Name: checker.CheckerBankTotal}, {Name: checker.CheckerSerializable}}
		},
	},
}

// exploreFamilyOf returns the explorer's entry for family, or nil.
func exploreFamilyOf(family string) *exploreFamily {
	for i := range exploreFamilies {
		if exploreFamilies[i].family == family {
			return &exploreFamilies[i]
		}
	}
	return nil
}

// ExploreFamilies lists the families Explore searches.
func ExploreFamilies() []string {
	out := make([]string, len(exploreFamilies))
	for i, f := range exploreFamilies {
		out[i] = f.family
	}
	return out
}
