package election

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): an election ordered by mod
// revision instead of create revision. The documents this project grew
// from state the rule: the leader is the candidate whose key was created
// first, and concurrency.Election sorts by create revision for that reason.
// A key's mod revision moves every time its value is written, so here the
// leader's own Proclaim sends it to the back of the line: the follower with
// the oldest unchanged key concludes that it leads while the leader, which
// did nothing wrong, still believes it does. Two leaders on a healthy
// cluster, shown by the scenario election/modrevision/healthy.
//
// newModRevision returns an Elector whose candidates, and whose Leader and
// Observe, take the key with the lowest mod revision as the leader.
func newModRevision(cli *clientv3.Client, prefix string, opts Options) (Elector, error) {
	b, err := newBase(cli, prefix, opts, byMod)
	if err != nil {
		return nil, err
	}
	return &modRevision{base: b}, nil
}

type modRevision struct{ *base }

// Campaign creates the candidate key and, after every change under the
// prefix, reads which key has the lowest mod revision, until it is its own.
func (e *modRevision) Campaign(ctx context.Context, value string) (Leadership, error) {
	return e.campaignQueued(ctx, value, " by mod revision", func(ctx context.Context, key string, _ int64) error {
		for {
			info, rev, err := leaderAt(ctx, e.cli, e.pfx, byMod, 0)
			if err != nil {
				return err
			}
			if info.Key == key {
				return nil
			}
			wctx, cancel := context.WithCancel(ctx)
			wr := <-e.cli.Watch(wctx, e.pfx, clientv3.WithPrefix(), clientv3.WithRev(rev+1))
			cancel()
			if err := wr.Err(); err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	})
}
