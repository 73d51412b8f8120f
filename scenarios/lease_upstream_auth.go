package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// upstream13975: with auth on, a leader revokes an expired lease as root,
// with a root token it assigns for the purpose; the report saw the revoke
// refused "invalid auth token" — root's password had been changed — and
// the lease then never expired. Here the first holder of a mutex is
// paused as it acquires, for three TTLs, with auth on and every client a
// user of its own, while root's tokens are ended 60 times, 25ms apart —
// each expiry a password change through raft, so about every 80ms for
// some five seconds: across the paused holder's lease expiry and the
// lessor's first retry. On etcd
// v3.7.3 the report's outcome no longer holds: the lessor keeps an expired
// lease in its queue and tries again every 3s until the revoke goes
// through, and a revoke as root is not refused for an older auth revision
// (the leases' keys are checked with IsAdminPermitted, which reads no
// revision), so root's token can be refused only if it is dropped
// between the lessor's assigning it and the revoke's proposal. The
// paused holder's lock is free a TTL after the pause began, and a waiter
// takes it; judged by liveness and by the guarded resource (the holder
// wakes believing it holds the lock, and its fencing token refuses its
// late write).
func upstream13975() []Scenario {
	r := report("etcd-13975")
	w := Workload{Clients: 3, Duration: Duration(8 * time.Second)}
	checks := []Check{{Name: checker.CheckerLiveness, Bound: Duration(2 * time.Second)},
		{Name: checker.CheckerMutualExclusion, ResourceOnly: true}, {Name: checker.CheckerFencing}}
	s := upstreamLock("mutex", w, pauseHolder(3*time.Second), checks, checker.Expectation{})
	s.Faults.Nemesis = &faults.Nemesis{Mix: []faults.Choice{faults.Weighted(1, faults.ExpireToken(faults.User("root")))},
		MinFor: time.Second, MaxFor: time.Second, Quiet: 25 * time.Millisecond, Steps: 60}
	s.Cluster.Latency = Duration(time.Millisecond)
	s.Cluster.Auth = &Auth{}
	return []Scenario{
		r.scenario(s, "expire-root-at-lease-expiry", ShowsFixedUpstream,
			"with auth on, the holder is paused as it acquires while root's tokens are ended some 60 times over 5s, "+
				"across its lease's expiry: the lease is revoked and a waiter takes the lock a TTL into the pause"),
	}
}
