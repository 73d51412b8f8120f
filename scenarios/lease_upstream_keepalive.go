package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// The upstream scenarios of the keep-alive: what an answer to a
// keep-alive says of a lease that is going or gone.

// fastKeepAliveOff is the gate setting that makes a leader wait, before
// it renews a lease, until it has applied every entry it has committed —
// the revoke of that lease among them. etcd v3.7.3 turns the gate on by
// default (etcd PR #20589): a leader then waits only for a lease it does
// not find.
const fastKeepAliveOff = "FastLeaseKeepAlive=false"

// revokeHolderEvery revokes the lease of the lock's holder n times, every
// period from 0.6s on: the first midway through the first hold, clear of
// its hand-off (at 1s on the virtual clock, up to 1.3s on the real one,
// where each check takes a round trip), when nobody may hold the lock and
// the revoke would find no holder; each later one, a period less than a
// hold after the last, within the hold that began just after it.
func revokeHolderEvery(n int, period time.Duration) *faults.Timeline {
	var steps []faults.Step
	for i := range n {
		steps = append(steps, faults.At(600*time.Millisecond+time.Duration(i)*period, 0, faults.RevokeLease(faults.LockHolder("L"))))
	}
	return &faults.Timeline{Steps: steps}
}

// upstream14758: two clients take turns at the lock, each holding it for
// a second and asking, before each of its 8 writes, for a keep-alive
// answer sent when it asks (KeepAliveOnce, owner check "keepalive"); the
// holder's lease is revoked 8 times, every 700ms from 0.6s. A keep-alive
// answered with a TTL after the revoke of its lease had returned would
// have the holder write on a lock whose key is gone: revoked-lease flags
// it, and the guarded resource refuses the write when another holder has
// written since. Two races could give such an answer: a renewal that
// slips into the lessor's Revoke between its deleting the keys and its
// forgetting the lease (etcd PR #21389), and, with FastLeaseKeepAlive on,
// a leader that renews a lease whose revoke it has committed but not yet
// applied. The first answers a request made before the revoke returned,
// which is no contradiction; the second needs a member to answer the
// revoke before the leader has applied it. Run with the gate on (etcd's
// default) and off, neither shows it on v3.7.3 (docs/upstream.md): both
// expect a pass.
func upstream14758() []Scenario {
	r := report("etcd-14758")
	w := Workload{Clients: 2, Hold: Duration(time.Second), Writes: 8, OwnerCheck: OwnerCheckKeepAlive,
		TTL: Duration(time.Second), Patience: Duration(2 * time.Second), Duration: Duration(7 * time.Second)}
	checks := []Check{{Name: checker.CheckerRevokedLease}, {Name: checker.CheckerMutualExclusion, ResourceOnly: true}}
	s := func(gates string) Scenario {
		sc := upstreamLock("keepalive-once", w, revokeHolderEvery(8, 700*time.Millisecond), checks, checker.Expectation{})
		sc.Cluster.FeatureGates = gates
		return sc
	}
	return []Scenario{
		r.scenario(s(""), "revoke-holder-fast-keepalive", ShowsFixedUpstream,
			"does not hold on v3.7.3 (passed 100 of 100 runs on the virtual clock, 20 of 20 on the real one): with "+
				"FastLeaseKeepAlive on, etcd's default, the holder's lease is revoked 8 times while it asks by KeepAliveOnce "+
				"before each write, and no answer sent after a revoke returned says the lease lives"),
		r.scenario(s(fastKeepAliveOff), "revoke-holder-gate-off", ShowsFixedUpstream,
			"does not hold on v3.7.3 (passed 100 of 100 runs on the virtual clock, 17 of 17 on the real one): the same with "+
				"FastLeaseKeepAlive off, where the leader waits for its applied index before each renewal"),
	}
}

// leaderlessStream cuts the member c1's lease stream is on off from the
// other members at 1.5s, for 2s: clients still reach it, and it has no
// leader from an election timeout on.
func leaderlessStream() *faults.Timeline {
	return &faults.Timeline{Steps: []faults.Step{faults.At(1500*time.Millisecond, 2*time.Second, faults.Partition(faults.Pinned("c1")))}}
}

// upstream21126: one process takes the lock — a key created on a lease
// of its own, kept alive by clientv3's KeepAlive under
// WithRequireLeader(context.Background()) — and holds it until it is told
// it may have lost it. At 1.5s the member its lease stream is on is cut
// off from the others for 2s, and has no leader: clientv3 closes the
// keep-alive channel, the holder stops, takes its lease for gone and
// tries to lock again. clientv3 moves its lease stream to another member
// half a second later and goes on renewing the old lease, with no channel
// left to tell anyone: the key stays, and the process waits behind it to
// the end of the run. With the keep-alive's context cancelled when its
// channel closes, clientv3 forgets the lease, it expires a TTL later, and
// the process takes the lock again. Judged by liveness, with the 3s TTL's
// bound of 5s.
func upstream21126() []Scenario {
	r := report("etcd-21126")
	w := Workload{Clients: 1, Hold: Duration(40 * time.Second), Writes: 80, TTL: Duration(3 * time.Second), Duration: Duration(10 * time.Second)}
	checks := []Check{{Name: checker.CheckerLiveness}, {Name: checker.CheckerMutualExclusion}}
	s := func(recipe string, expect checker.Expectation) Scenario {
		sc := upstreamLock(recipe, w, leaderlessStream(), checks, expect)
		sc.Cluster.Latency = Duration(time.Millisecond)
		return sc
	}
	broken := r.scenario(s("requireleader-keepalive", upStarvation), "leaderless-stream", ShowsReport,
		"the member the holder's lease stream is on loses its leader; clientv3 closes the WithRequireLeader keep-alive channel "+
			"but goes on renewing the lease through another member: the key stays, and nobody can take the lock")
	fixed := r.scenario(s("requireleader-cancel", checker.Expectation{}), "leaderless-stream-fixed", ShowsFix,
		"the same with the keep-alive's context cancelled when the channel closes: clientv3 forgets the lease, it expires, "+
			"and the process takes the lock again")
	// etcd's Mutex in the broken recipe's place holds its one session past
	// the heal, to the run's end: liveness has no acquire after the heal to
	// judge. The fixed variant is the control.
	broken.Control = fixed.Name
	return []Scenario{broken, fixed}
}
