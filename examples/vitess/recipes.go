package vitess

import (
	"slices"
	"time"
	_ "unsafe" // for go:linkname

	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lease"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// The recipes as etcdsim's scenario constructors take them.
var (
	Lock = lock.Recipe{Name: "vitess-lock", New: NewLocker,
		Summary: "vitess etcd2topo LockWithTTL: an ephemeral key on a kept-alive lease, waiting for every older key"}
	Election = election.Recipe{Name: "vitess-election", New: NewElector,
		Summary: "vitess etcd2topo LeaderParticipation: WaitForLeadership on a lock of the election's directory"}
)

// leaseSeconds is etcd2topo's lease TTL for elections, in seconds: a
// package variable set by a vitess binary's -topo-etcd-lease-ttl flag, 30
// unless set.
//
//go:linkname leaseSeconds vitess.io/vitess/go/vt/topo/etcd2topo.leaseTTL
var leaseSeconds int

var leaseTTL = lease.Global{Name: "etcd2topo's leaseTTL (-topo-etcd-lease-ttl)", Seconds: &leaseSeconds}

// SetLeaseTTL sets etcd2topo's process-wide lease TTL, as the flag would;
// the tests set it before anything runs.
func SetLeaseTTL(d time.Duration) { leaseTTL.Set(d) }

// Scenarios returns vitess's lock under LockSafety and its leader
// participation under ElectionSafety, on the virtual clock. The
// election's need etcd2topo's lease TTL set to their 1 s (SetLeaseTTL).
func Scenarios() []scenarios.Scenario {
	return slices.Concat(scenarios.LockSafety(Lock), scenarios.ElectionSafety(Election))
}
