package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/faults"
)

// discoveryCrashRun is how long the crash-backend schedule runs: the last
// crashed backend is back at 4.5s, its old key gone by 4s (its crash plus
// the TTL), and resolvers are judged for 2s and more after the bound.
const discoveryCrashRun = 9 * time.Second

// crashBackends crashes backends c1 and c2, one after the other, without
// a deregistration: each process dies with its echo server, its key stays
// in etcd until its lease expires a TTL later, and the restarted process
// serves and registers on a new port. Resolvers must drop the old
// endpoint and add the new one, each within the bound.
func crashBackends() *faults.Timeline {
	return &faults.Timeline{Steps: []faults.Step{
		faults.At(time.Second, 2*time.Second, faults.Crash(faults.Client("c1"))),
		faults.At(2500*time.Millisecond, 2*time.Second, faults.Crash(faults.Client("c2"))),
	}}
}

// discoveryReregisterRun is how long the reregister schedule runs: the
// last revoke is at 4.5s, and resolvers are judged from its TTL (1s) and
// bound (2s) later for 2s and more.
const discoveryReregisterRun = 10 * time.Second

// reregisterBackends revokes the lease of backends c1, c2 and c3 in turn,
// 1.5s apart, once the registry has been stable for the convergence
// bound. Each revoke deletes the backend's key, and a correct registrar
// puts the same key again on a new lease within milliseconds: a delete
// then a put of one key, under the resolvers' watches. A resolver that
// applies the two out of order, or drops one of them, ends up without a
// backend that is registered and serving. Each backend's lease is revoked
// once: a revoke finds the lease of the backend's recorded registration,
// which its registrar has left by then.
func reregisterBackends() *faults.Timeline {
	return &faults.Timeline{Steps: []faults.Step{
		faults.At(1500*time.Millisecond, 0, faults.RevokeLease(faults.Client("c1"))),
		faults.At(3000*time.Millisecond, 0, faults.RevokeLease(faults.Client("c2"))),
		faults.At(4500*time.Millisecond, 0, faults.RevokeLease(faults.Client("c3"))),
	}}
}
