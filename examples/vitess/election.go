package vitess

import (
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/election"
)

// NewElector campaigns in the election prefix with vitess's leader
// participation (WaitForLeadership, which takes no context, and Stop),
// whose lease TTL is the process's (SetLeaseTTL): a different opts.TTL is
// refused. Its terms have no number, and its leadership context ends on
// Stop alone, not when the lease is lost. Close stops every participation
// before it closes the server: a Stop after the server's Close blocks for
// good (vitess's participation goroutine returns on the close without
// closing done).
func NewElector(cli *clientv3.Client, prefix string, opts election.Options) (election.Elector, error) {
	if err := leaseTTL.Check(opts.TTL); err != nil {
		return nil, err
	}
	srv, err := newServer(cli)
	if err != nil {
		return nil, err
	}
	return &election.Funcs{Stop: srv.Close, NoFencing: "etcd2topo's leader participation exposes neither its key nor its revision",
		Join: func(value string) (election.Participant, error) { return srv.NewLeaderParticipation(prefix, value) }}, nil
}
