package vitess

import (
	"time"

	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
)

// The recipes as etcdsim's scenario constructors take them.
var (
	Lock = lock.Recipe{Name: "vitess-lock", New: NewLocker,
		Summary: "vitess etcd2topo LockWithTTL: an ephemeral key on a kept-alive lease, waiting for every older key"}
	Election = election.Recipe{Name: "vitess-election", New: NewElector,
		Summary: "vitess etcd2topo LeaderParticipation: WaitForLeadership on a lock of the election's directory"}
)

func ttlOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func errOr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}
