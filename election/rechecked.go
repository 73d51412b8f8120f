package election

import (
	"context"
	"errors"
	"fmt"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/lease"
)

// NewRechecked returns an Elector built on concurrency.Election that closes
// the two holes of its Campaign (etcd #19597; the fix, etcd PR #22387, is
// still open):
//
//   - Campaign waits only for older candidate keys to go. If the
//     candidate's own lease expires meanwhile, etcd deletes its key but the
//     wait goes on (a zombie candidate), and when the older keys go at last
//     Campaign reports leadership over a key that no longer exists (a
//     phantom leader) while a younger candidate really leads.
//   - concurrency.Session.Done can close after another candidate has
//     already won (see lease).
//
// Here the wait is cancelled as soon as the lease can no longer be known to
// be alive, and after the wait a linearizable read checks that the key
// still exists with the create revision it was given; otherwise Campaign
// returns an error wrapping ErrLeaseExpired. Leadership.Done closes before
// the server can expire the lease.
//
// Candidate keys are "<prefix>/<lease in hex>", the layout of
// concurrency.Election and of etcd's election service, so candidates of
// all three can share one election.
func NewRechecked(cli *clientv3.Client, prefix string, opts Options) (Elector, error) {
	b, err := newBase(cli, prefix, opts, byCreate)
	if err != nil {
		return nil, err
	}
	return &rechecked{base: b}, nil
}

type rechecked struct{ *base }

func (e *rechecked) Campaign(ctx context.Context, value string) (Leadership, error) {
	return e.campaign(ctx, value, nil)
}

// campaign is Campaign; won, if set, is called once the wait has ended and
// before the recheck, with the candidate's key, its create revision and
// the guard of its lease.
func (e *rechecked) campaign(ctx context.Context, value string, won func(key string, rev int64, g *lease.Guard)) (Leadership, error) {
	g, err := e.hold(ctx)
	if err != nil {
		return nil, err
	}
	s, err := g.Session() // on the guard's lease; it stops with the guard
	if err != nil {
		e.drop(ctx, g)
		return nil, fmt.Errorf("election: campaign on %s: %w", e.prefix, err)
	}
	el := concurrency.NewElection(s, e.prefix)

	err = waitGuarded(ctx, g, func(ctx context.Context) error { return el.Campaign(ctx, value) })
	if err != nil {
		e.drop(ctx, g)
		return nil, fmt.Errorf("election: campaign on %s with lease %x: %w", e.prefix, int64(g.ID()), err)
	}
	if won != nil {
		won(el.Key(), el.Rev(), g)
	}
	if err := recheck(ctx, e.cli, el.Key(), el.Rev(), g); err != nil {
		e.drop(ctx, g)
		return nil, err
	}
	return e.lead(el.Key(), el.Rev(), value, g), nil
}

// waitGuarded runs wait with a context that is cancelled when ctx ends or
// the guard's lease may be gone. In the second case it returns an error
// wrapping ErrLeaseExpired.
func waitGuarded(ctx context.Context, g *lease.Guard, wait func(context.Context) error) error {
	cctx, cancel := context.WithCancelCause(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-g.Done():
			cancel(ErrLeaseExpired)
		case <-cctx.Done():
		}
	}()
	err := wait(cctx)
	cancel(nil)
	wg.Wait()
	if err != nil && errors.Is(context.Cause(cctx), ErrLeaseExpired) && ctx.Err() == nil {
		return fmt.Errorf("%w (lease %x): %v", ErrLeaseExpired, int64(g.ID()), err)
	}
	return err
}

// recheck makes sure, with a linearizable read after the wait, that the
// candidate key still exists with the create revision it was given and the
// lease is still known to be alive.
func recheck(ctx context.Context, cli *clientv3.Client, key string, term int64, g *lease.Guard) error {
	resp, err := cli.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("election: recheck %s: %w", key, err)
	}
	if len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != term {
		return fmt.Errorf("%w: %s (term %d) was gone when the wait ended", ErrLeaseExpired, key, term)
	}
	if !g.Alive() {
		return fmt.Errorf("%w: lease %x of %s may have expired", ErrLeaseExpired, int64(g.ID()), key)
	}
	return nil
}
