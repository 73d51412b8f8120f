package election

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// BROKEN (deliberately): the upstream
// concurrency.Election used as its documentation shows, without a recheck.
// Its Campaign puts the candidate key and waits only for older keys to be
// deleted. If the candidate's lease expires while it waits (a paused
// process, a partition longer than the TTL), etcd deletes its key, a
// younger candidate can win, and when the older keys finally go Campaign
// still returns nil: the caller is told it leads over a key that no longer
// exists. Reported as etcd #19597 (the fix, etcd PR #22387, is still open
// as of v3.7.3) and seen in production in cagriekin/charts #326 ("phantom
// leadership"). Leadership.Done is the session's Done, as users write it;
// it may close soon after, but the caller has been told it won. Shown by
// the scenario election/unchecked/pause-waiter.
//
// newUnchecked returns an Elector that is concurrency.Election on a
// concurrency.Session of its own per campaign, with nothing added.
func newUnchecked(cli *clientv3.Client, prefix string, opts Options) (Elector, error) {
	b, err := newBase(cli, prefix, opts, byCreate)
	if err != nil {
		return nil, err
	}
	return &unchecked{base: b}, nil
}

type unchecked struct{ *base }

func (e *unchecked) Campaign(ctx context.Context, value string) (Leadership, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	s, h, id, err := e.userSession(ctx)
	if err != nil {
		return nil, err
	}
	el := concurrency.NewElection(s, e.prefix)
	if err := el.Campaign(ctx, value); err != nil {
		e.drop(ctx, h)
		return nil, fmt.Errorf("election: campaign on %s with lease %x: %w", e.prefix, int64(id), err)
	}
	return e.lead(el.Key(), el.Rev(), value, h), nil
}
