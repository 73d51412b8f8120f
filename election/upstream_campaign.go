package election

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// retryingCampaigner is concurrency.Election used the way the callers of
// etcd #21128 use it (cadence-workflow/cadence#7608, sorintlab/stolon#659):
// each round of the election loop opens a session of its own and
// campaigns on it; a Campaign that fails is withdrawn with Resign, the
// API's way to leave an election, and the loop starts a new round. The
// rounds' sessions live as long as the process (they are closed by the
// Elector's Close), as those callers' did: their leases are kept alive.
//
// A won term proclaims and resigns through the same concurrency.Election
// (Proclaim, Resign), then closes its session.
//
// What the recipe does with a Campaign that failed is its own: withdraw
// it with upstream's Resign alone (campaign-retry, broken), or delete the
// candidate key if it is still the one Campaign created (campaign-retry-
// resigned, the fix proposed upstream).
type retryingCampaigner struct {
	*base
	// withdraw cleans up after el.Campaign returned an error.
	withdraw func(ctx context.Context, cli *clientv3.Client, el *concurrency.Election) error
}

func newRetryingCampaigner(cli *clientv3.Client, prefix string, opts Options,
	withdraw func(context.Context, *clientv3.Client, *concurrency.Election) error) (*retryingCampaigner, error) {
	b, err := newBase(cli, prefix, opts, byCreate)
	if err != nil {
		return nil, err
	}
	return &retryingCampaigner{base: b, withdraw: withdraw}, nil
}

// Campaign runs one round: a new session, a new Election on it, Campaign.
// The session is concurrency.Session's own, as those callers make it: it
// alone renews the lease and decides when Done closes (a lease guard only
// checks the TTL at the grant).
func (e *retryingCampaigner) Campaign(ctx context.Context, value string) (Leadership, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	s, h, id, err := e.userSession(ctx)
	if err != nil {
		return nil, err
	}
	el := concurrency.NewElection(s, e.prefix)
	if err := el.Campaign(ctx, value); err != nil {
		werr := e.withdraw(context.WithoutCancel(ctx), e.cli, el)
		return nil, errors.Join(fmt.Errorf("election: campaign on %s with lease %x: %w", e.prefix, int64(id), err), werr)
	}
	l := e.lead(el.Key(), el.Rev(), value, h)
	l.office = electionOffice{el}
	return l, nil
}

// electionOffice proclaims and resigns through the concurrency.Election
// that won the term.
type electionOffice struct{ el *concurrency.Election }

func (o electionOffice) proclaim(ctx context.Context, l *leadership, value string) error {
	err := o.el.Proclaim(ctx, value)
	switch {
	case errors.Is(err, concurrency.ErrElectionNotLeader):
		return fmt.Errorf("%w: %s (term %d) is gone", ErrNotLeader, l.key, l.term)
	case err != nil:
		return fmt.Errorf("election: proclaim %s: %w", l.key, err)
	}
	return nil
}

// resign resigns through the Election, which deletes the key only if it
// still has the term's create revision; it does not say whether it did,
// so a read first tells a term already lost.
func (o electionOffice) resign(ctx context.Context, l *leadership) error {
	resp, err := l.cli.Get(ctx, l.key)
	if err != nil {
		return fmt.Errorf("election: resign %s: %w", l.key, err)
	}
	if len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != l.term {
		return fmt.Errorf("%w: %s (term %d) was lost before the resign", ErrNotLeader, l.key, l.term)
	}
	if err := o.el.Resign(ctx); err != nil {
		return fmt.Errorf("election: resign %s: %w", l.key, err)
	}
	return nil
}
