package myrecipes

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lease"
)

var (
	_ election.LeaderReader = (*elector)(nil)
	_ election.Leaser       = (*leadership)(nil)
)

// elector is a candidate built on concurrency.Election, with two changes
// a careful user makes after reading lease's doc: the campaign's
// lease is kept by a lease.Guard, whose Done (not the session's) says when
// to stop leading, and the wait for the turn ends with the lease and is
// followed by a linearizable read that the leader key is still ours.
type elector struct {
	cli    *clientv3.Client
	prefix string
	ttl    time.Duration

	mu     sync.Mutex            // guards guards and closed
	guards map[*lease.Guard]bool // one per campaign not yet ended
	closed bool
}

// NewElection returns a candidate in the election under prefix.
// Options.TTL 0 means election.DefaultTTL.
func NewElection(cli *clientv3.Client, prefix string, opts election.Options) (election.Elector, error) {
	switch {
	case cli == nil:
		return nil, fmt.Errorf("myrecipes: election %q: nil client", prefix)
	case prefix == "":
		return nil, election.ErrBadPrefix
	}
	if opts.TTL == 0 {
		opts.TTL = election.DefaultTTL
	}
	if err := lease.CheckTTL(opts.TTL); err != nil {
		return nil, fmt.Errorf("%w: %w", election.ErrBadTTL, err)
	}
	return &elector{cli: cli, prefix: prefix, ttl: opts.TTL, guards: make(map[*lease.Guard]bool)}, nil
}

// Campaign waits for its turn on a lease of its own and checks, once it
// comes, that the leader key is still there.
func (e *elector) Campaign(ctx context.Context, value string) (election.Leadership, error) {
	g, err := lease.Grant(ctx, e.cli, e.ttl)
	if err != nil {
		if errors.Is(err, lease.ErrBadTTL) {
			err = fmt.Errorf("%w: %w", election.ErrBadTTL, err)
		}
		return nil, fmt.Errorf("myrecipes: campaign in %s: %w", e.prefix, err)
	}
	if err := e.track(g); err != nil {
		return nil, errors.Join(err, g.Close(context.WithoutCancel(ctx)))
	}
	l, err := e.campaign(ctx, g, value)
	if err != nil {
		e.untrack(g)
		return nil, errors.Join(err, g.Close(context.WithoutCancel(ctx)))
	}
	return l, nil
}

func (e *elector) campaign(ctx context.Context, g *lease.Guard, value string) (*leadership, error) {
	s, err := g.Session()
	if err != nil {
		return nil, err
	}
	// The wait ends when the lease may be gone, not only with ctx.
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(g.Context(), func() { cancel(fmt.Errorf("%w: %w", election.ErrLeaseExpired, g.Err())) })()

	ce := concurrency.NewElection(s, e.prefix)
	if err := ce.Campaign(wctx, value); err != nil {
		if cause := context.Cause(wctx); cause != nil {
			err = cause
		}
		return nil, fmt.Errorf("myrecipes: campaign in %s: %w", e.prefix, err)
	}
	// concurrency.Election.Campaign returns once every older key is gone,
	// even if ours went with its lease meanwhile: look.
	resp, err := e.cli.Get(wctx, ce.Key())
	switch {
	case err != nil:
		return nil, fmt.Errorf("myrecipes: campaign in %s: recheck %s: %w", e.prefix, ce.Key(), err)
	case len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != ce.Rev():
		return nil, fmt.Errorf("%w: %s was gone when its turn came", election.ErrLeaseExpired, ce.Key())
	case !g.Alive():
		return nil, fmt.Errorf("%w: %s: %w", election.ErrLeaseExpired, ce.Key(), g.Err())
	}
	return &leadership{e: e, ce: ce, g: g, key: ce.Key(), term: ce.Rev(), value: value}, nil
}

// Leader reads the leader: the oldest key under the prefix.
func (e *elector) Leader(ctx context.Context) (election.LeaderInfo, error) {
	resp, err := e.cli.Get(ctx, e.prefix+"/", clientv3.WithFirstCreate()...)
	if err != nil {
		return election.LeaderInfo{}, fmt.Errorf("myrecipes: leader of %s: %w", e.prefix, err)
	}
	if len(resp.Kvs) == 0 {
		return election.LeaderInfo{}, fmt.Errorf("%w in %s", election.ErrNoLeader, e.prefix)
	}
	kv := resp.Kvs[0]
	return election.LeaderInfo{Key: string(kv.Key), Value: string(kv.Value), Term: kv.CreateRevision, Rev: kv.ModRevision}, nil
}

// Close revokes the lease of every campaign, which resigns a leader.
func (e *elector) Close() error {
	e.mu.Lock()
	e.closed = true
	guards := e.guards
	e.guards = make(map[*lease.Guard]bool)
	e.mu.Unlock()
	var errs []error
	for g := range guards {
		errs = append(errs, g.Close(context.Background())) // bounded by the TTL
	}
	return errors.Join(errs...)
}

func (e *elector) track(g *lease.Guard) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return fmt.Errorf("%w: %s", election.ErrClosed, e.prefix)
	}
	e.guards[g] = true
	return nil
}

func (e *elector) untrack(g *lease.Guard) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.guards, g)
}

// leadership is one term won by Campaign. Its Done is the guard's.
type leadership struct {
	e    *elector
	ce   *concurrency.Election // not safe for concurrent use: mu guards it
	g    *lease.Guard
	key  string // the leader key, which ce forgets on Resign
	term int64  // its create revision

	mu    sync.Mutex // guards ce and value
	value string
}

func (l *leadership) Term() int64             { return l.term }
func (l *leadership) Key() string             { return l.key }
func (l *leadership) Done() <-chan struct{}   { return l.g.Done() }
func (l *leadership) Lease() clientv3.LeaseID { return l.g.ID() }

func (l *leadership) Value() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.value
}

// Proclaim changes the value while the key is still ours and the lease is
// known to be alive.
func (l *leadership) Proclaim(ctx context.Context, value string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.g.Alive() {
		return fmt.Errorf("%w: %s: %w", election.ErrNotLeader, l.key, l.g.Err())
	}
	if err := l.ce.Proclaim(ctx, value); err != nil {
		if errors.Is(err, concurrency.ErrElectionNotLeader) {
			err = election.ErrNotLeader
		}
		return fmt.Errorf("myrecipes: proclaim in %s: %w", l.e.prefix, err)
	}
	l.value = value
	return nil
}

// Resign stops leading first (Done closes), then deletes the key and
// revokes the lease.
func (l *leadership) Resign(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.g.Alive() {
		l.e.untrack(l.g)
		return errors.Join(fmt.Errorf("%w: %s: %w", election.ErrNotLeader, l.key, l.g.Err()), l.g.Close(ctx))
	}
	l.g.Stop()
	err := l.ce.Resign(ctx)
	l.e.untrack(l.g)
	if err != nil {
		err = fmt.Errorf("myrecipes: resign %s: %w", l.key, err)
	}
	return errors.Join(err, l.g.Close(ctx))
}
