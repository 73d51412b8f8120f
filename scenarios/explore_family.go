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
}

// exploreFamilies are the families the explorer searches. A family not
// here is refused with the list.
var exploreFamilies = []exploreFamily{
	{
		family: FamilyLock, start: checker.KindAcquire, mid: checker.KindGuardedWrite, end: checker.KindRelease,
		holder: faults.LockHolder, writes: true,
		judges: func(l loss, bound time.Duration, foreign bool) []Check {
			out := []Check{{Name: checker.CheckerMutualExclusion, ResourceOnly: l != keepsAll}, {Name: checker.CheckerFencing}}
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
