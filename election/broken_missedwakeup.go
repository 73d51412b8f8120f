package election

import (
	"context"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): a candidate that can miss its wake-up, the
// election twin of the lock missed-wakeup. Candidates queue by the create
// revision of their keys, as concurrency.Election's do, and each waits for
// the key just ahead of it to go; but it reads that key and then watches it
// from "now", with no revision. A leader that resigns between the read and
// the moment etcd registers the watch is deleted before the watch begins:
// its delete is never seen, and the candidate waits for a leader that has
// already gone — the election has no leader, and the candidates queued
// behind it wait too — until its patience ends. It takes a candidate that
// campaigns just as the leader resigns: two candidates whose think time
// equals their term. Watching from the revision of the read plus one, as
// concurrency.Election's waitDeletes does, is the fix. A liveness failure,
// not a safety one. Shown by the scenario election/missed-wakeup/contention.
//
// newMissedWakeup returns an Elector whose candidates watch the key ahead
// of them from the revision etcd is at when the watch starts.
func newMissedWakeup(cli *clientv3.Client, prefix string, opts Options) (Elector, error) {
	b, err := newBase(cli, prefix, opts, byCreate)
	if err != nil {
		return nil, err
	}
	return &missedWakeup{base: b}, nil
}

type missedWakeup struct{ *base }

// Campaign creates the candidate key and waits, predecessor by predecessor,
// until no older key is left.
func (e *missedWakeup) Campaign(ctx context.Context, value string) (Leadership, error) {
	return e.campaignQueued(ctx, value, "", func(ctx context.Context, _ string, term int64) error {
		older := append(clientv3.WithLastCreate(), clientv3.WithMaxCreateRev(term-1))
		for {
			resp, err := e.cli.Get(ctx, e.pfx, older...)
			if err != nil {
				return err
			}
			if len(resp.Kvs) == 0 {
				return nil
			}
			if err := e.waitDeleted(ctx, string(resp.Kvs[0].Key)); err != nil {
				return err
			}
		}
	})
}

// waitDeleted watches key until it is deleted: from whatever revision etcd
// is at when the watch is registered, not from the read that found key.
func (e *missedWakeup) waitDeleted(ctx context.Context, key string) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	for wr := range e.cli.Watch(wctx, key, clientv3.WithFilterPut()) { // the mistake: no WithRev
		if err := wr.Err(); err != nil {
			return err
		}
		for _, ev := range wr.Events {
			if ev.Type == mvccpb.DELETE {
				return nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("watch of %s closed", key)
}
