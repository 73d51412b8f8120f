package vitess

import (
	"cmp"
	"context"
	"fmt"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"vitess.io/vitess/go/vt/topo/etcd2topo"

	"github.com/etcdsim/etcdsim/election"
)

// elector campaigns with etcd2topo's LeaderParticipation.
type elector struct {
	srv  *etcd2topo.Server
	name string
	once sync.Once
}

// NewElector campaigns in the election prefix with vitess's leader
// participation, whose lease TTL is the process's (SetLeaseTTL): a
// different opts.TTL is refused.
func NewElector(cli *clientv3.Client, prefix string, opts election.Options) (election.Elector, error) {
	if err := leaseTTL.Check(opts.TTL); err != nil {
		return nil, err
	}
	srv, err := newServer(cli)
	if err != nil {
		return nil, err
	}
	return &elector{srv: srv, name: prefix}, nil
}

// Campaign waits for leadership with WaitForLeadership, which takes no
// context: ctx's end stops the participation. The term has no number, and
// its context ends on Stop alone, not when the lease is lost.
func (e *elector) Campaign(ctx context.Context, value string) (election.Leadership, error) {
	mp, err := e.srv.NewLeaderParticipation(e.name, value)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, mp.Stop)
	lctx, err := mp.WaitForLeadership()
	if !stop() || err != nil {
		return nil, fmt.Errorf("vitess: campaign: %w", cmp.Or(err, ctx.Err()))
	}
	return &election.Term{Campaigned: value, Lost: lctx.Done(), Stop: mp.Stop}, nil
}

// Unfenced declares that vitess's terms carry no number.
func (e *elector) Unfenced() string {
	return "etcd2topo's leader participation exposes neither its key nor its revision"
}

// Close closes vitess's server and its etcd client.
func (e *elector) Close() error {
	e.once.Do(e.srv.Close)
	return nil
}
