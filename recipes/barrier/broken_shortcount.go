package barrier

import (
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lock"
)

// BROKEN (deliberately): a count one short. Each process computes the
// barrier's count as the number of the others — the workers it waits
// for — not the size of the group, itself included. etcd's DoubleBarrier
// trusts the caller's count: the process that arrives second to last sees
// count-1 waiters, its own key the last of them, and puts the ready key,
// so everyone inside walks in before the last process has come, and the
// last is turned away (ErrTooManyClients). Shown by the scenario
// barrier/short-count/rounds.
func newShortCount(cli *clientv3.Client, name string, count int, opts lock.Options) (DoubleBarrier, error) {
	if count > 1 {
		count--
	}
	return newChecked(cli, name, count, opts)
}
