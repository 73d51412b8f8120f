package election

import (
	"context"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
)

// NewKeyWatched returns the rechecked Elector whose leaders also watch
// their own leader key: a term ends — Leadership.Done closes, and the
// lease guard stops renewing — as soon as the key is deleted, or the watch
// that would tell fails. concurrency.Election watches only the keys ahead
// of a candidate, never its own, so a key deleted from outside the recipe
// (an operator's `etcdctl del`, a cleanup job, a second deployment on the
// same prefix) leaves its leader leading while the next candidate, which
// saw the delete, leads too. The watch closes Done when the delete
// arrives; the next candidate's Campaign, which learns of it from the same
// revision, still has its recheck — a linearizable read — to do, so the
// old leader stops first.
func NewKeyWatched(cli *clientv3.Client, prefix string, opts Options) (Elector, error) {
	b, err := newBase(cli, prefix, opts, byCreate)
	if err != nil {
		return nil, err
	}
	return &keyWatched{rechecked: rechecked{base: b}}, nil
}

type keyWatched struct {
	rechecked
	watches sync.WaitGroup // one per term: the watch on its key
}

func (e *keyWatched) Campaign(ctx context.Context, value string) (Leadership, error) {
	return e.campaign(ctx, value, func(key string, rev int64, g *lease.Guard) {
		// Watched from the revision after the key's creation, so that a
		// delete between the wait and the recheck is seen too.
		wch := e.cli.Watch(g.Context(), key, clientv3.WithRev(rev+1))
		e.watches.Add(1)
		go func() {
			defer e.watches.Done()
			watchOwnKey(wch, g)
		}()
	})
}

// watchOwnKey stops g when the leader key it watches is deleted, or when
// the watch ends before g does: either way the term can no longer be known
// to stand. A Proclaim's put changes nothing.
func watchOwnKey(wch clientv3.WatchChan, g *lease.Guard) {
	for resp := range wch {
		if resp.Err() != nil {
			break
		}
		for _, ev := range resp.Events {
			if ev.Type == clientv3.EventTypeDelete {
				g.Stop()
				return
			}
		}
	}
	if g.Alive() {
		g.Stop() // the watch failed while the term stood
	}
}

// Close closes the Elector and waits for the watches of its terms.
func (e *keyWatched) Close() error {
	err := e.rechecked.Close()
	e.watches.Wait()
	return err
}
