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
	srv   *etcd2topo.Server
	name  string
	mu    sync.Mutex // guards stops
	stops []func()   // each participation's Stop, called once
	once  sync.Once
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
	stop := sync.OnceFunc(mp.Stop)
	e.mu.Lock()
	e.stops = append(e.stops, stop)
	e.mu.Unlock()
	after := context.AfterFunc(ctx, stop)
	lctx, err := mp.WaitForLeadership()
	if !after() || err != nil {
		return nil, fmt.Errorf("vitess: campaign: %w", cmp.Or(err, ctx.Err()))
	}
	return &election.Term{Campaigned: value, Lost: lctx.Done(), Stop: stop}, nil
}

// Unfenced declares that vitess's terms carry no number.
func (e *elector) Unfenced() string {
	return "etcd2topo's leader participation exposes neither its key nor its revision"
}

// Close stops every participation, then closes vitess's server and its
// etcd client: a Stop after the server's Close blocks for good (vitess's
// participation goroutine returns on the close without closing done).
func (e *elector) Close() error {
	e.once.Do(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, stop := range e.stops {
			stop()
		}
		e.srv.Close()
	})
	return nil
}
