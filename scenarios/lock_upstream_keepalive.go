package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// upstream21638: two clients take turns at the lock, each holding it for
// 4 s and making sure, before each of its 4 writes, that it still holds by
// a keep-alive answer of its lease (owner check "keepalive"). The lessor
// answers about every half second on a 1 s lease, and a holder that checks
// once a second falls behind on its channel. At 2 s, well into the first
// hold, the holder's lease is revoked: its key goes, the other client takes the
// lock, and the holder's next check takes an answer that waited on the
// channel from before the revoke. The fix twin asks with KeepAliveOnce.
// Both are judged by revoked-lease and by the guarded resource.
func upstream21638() []Scenario {
	r := report("etcd-21638")
	w := Workload{Clients: 2, Hold: Duration(4 * time.Second), Writes: 4, OwnerCheck: OwnerCheckKeepAlive,
		Patience: Duration(500 * time.Millisecond), Duration: Duration(8 * time.Second)}
	tl := func() *faults.Timeline {
		return &faults.Timeline{Steps: []faults.Step{faults.At(2*time.Second, 0, faults.RevokeLease(faults.LockHolder("L")))}}
	}
	checks := []Check{{Name: checker.CheckerRevokedLease}, {Name: checker.CheckerMutualExclusion, ResourceOnly: true}}
	acted := checker.Expectation{Checker: checker.CheckerRevokedLease, Violation: checker.ViolationActedAfterRevoke}
	return []Scenario{
		r.scenario(upstreamLock("keepalive-channel", w, tl(), checks, acted), "revoke-holder", ShowsReport,
			"the holder's lease is revoked while answers wait on its KeepAlive channel; it takes one after the revoke "+
				"as proof that it holds, and writes"),
		r.scenario(upstreamLock("keepalive-once", w, tl(), checks, checker.Expectation{}), "fixed", ShowsFix,
			"the same revoke with the holder asking by KeepAliveOnce: the first answer after the revoke says the lease is gone, and the holder stops"),
	}
}
