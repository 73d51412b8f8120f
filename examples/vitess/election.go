package vitess

import (
	"context"
	"fmt"
	"sync"
	"time"
	_ "unsafe" // for go:linkname

	clientv3 "go.etcd.io/etcd/client/v3"
	"vitess.io/vitess/go/vt/topo"
	"vitess.io/vitess/go/vt/topo/etcd2topo"

	"github.com/etcdsim/etcdsim/election"
)

// LeaseTTL is etcd2topo's lease TTL for elections, in seconds: a package
// variable set by a vitess binary's -topo-etcd-lease-ttl flag, 30 unless
// set. The tests set it before anything runs (SetLeaseTTL).
//
//go:linkname leaseTTL vitess.io/vitess/go/vt/topo/etcd2topo.leaseTTL
var leaseTTL int

// SetLeaseTTL sets etcd2topo's process-wide lease TTL, as the flag would.
func SetLeaseTTL(d time.Duration) { leaseTTL = int(d / time.Second) }

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
	if opts.TTL != 0 && opts.TTL != time.Duration(leaseTTL)*time.Second {
		return nil, fmt.Errorf("vitess: election TTL %v: etcd2topo's is %ds for the whole process (SetLeaseTTL)", opts.TTL, leaseTTL)
	}
	srv, err := newServer(cli)
	if err != nil {
		return nil, err
	}
	return &elector{srv: srv, name: prefix}, nil
}

// Campaign waits for leadership with WaitForLeadership, which takes no
// context: ctx's end stops the participation.
func (e *elector) Campaign(ctx context.Context, value string) (election.Leadership, error) {
	mp, err := e.srv.NewLeaderParticipation(e.name, value)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, mp.Stop)
	lctx, err := mp.WaitForLeadership()
	if !stop() || err != nil {
		return nil, fmt.Errorf("vitess: campaign: %w", errOr(err, ctx.Err()))
	}
	return &leadership{mp: mp, ctx: lctx, value: value}, nil
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

// leadership is one term: vitess gives it no term number, and its context
// ends on Stop alone, not when the lease is lost.
type leadership struct {
	mp    topo.LeaderParticipation
	ctx   context.Context
	value string
	once  sync.Once
}

func (l *leadership) Term() int64                                  { return 0 }
func (l *leadership) Key() string                                  { return "" }
func (l *leadership) Value() string                                { return l.value }
func (l *leadership) Done() <-chan struct{}                        { return l.ctx.Done() }
func (l *leadership) Proclaim(ctx context.Context, v string) error { return errNoProclaim }
func (l *leadership) Resign(ctx context.Context) error {
	l.once.Do(l.mp.Stop)
	return nil
}

var errNoProclaim = fmt.Errorf("vitess: etcd2topo's leader participation has no Proclaim: %w", election.ErrNotLeader)
