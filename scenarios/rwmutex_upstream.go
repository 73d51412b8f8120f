package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
)

// The upstream scenarios of the rwmutex family.

// upstream16221: etcd #16221 under revokeWaiter's schedule: upstream's
// RWMutex.Lock returns nil to the writer whose session was revoked while
// it waited, and c1, queued again behind the vanished key, walks in: two
// writers until c2's session guard closes Done. The fix reads the key
// after the wait and is told the session expired.
func upstream16221() []Scenario {
	r := report("etcd-16221")
	scenario := func(recipe string, expect checker.Expectation) Scenario {
		rr, err := rwmutex.Lookup(recipe)
		if err != nil {
			panic(err)
		}
		w, tl := revokeWaiter()
		s := rwBase(rr, w)
		s.Faults.Timeline = tl
		s.Checkers = []Check{{Name: checker.CheckerRWExclusion}, {Name: checker.CheckerLiveness, Bound: Duration(5 * time.Second)}}
		s.Expect = expect
		return s
	}
	return []Scenario{
		r.scenario(scenario("unchecked", checker.Expectation{Checker: checker.CheckerRWExclusion, Violation: checker.ViolationOverlap}),
			"revoke-waiter", ShowsReport,
			"a writer whose session is revoked while it waits in RWMutex.Lock is told it holds the lock, and the next writer walks in beside it"),
		r.scenario(scenario("checked", checker.Expectation{}), "fixed", ShowsFix,
			"the same revocation with the caller's key read after the wait: the waiter is told its session expired"),
	}
}
