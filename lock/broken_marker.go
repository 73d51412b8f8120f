package lock

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): ordering by the wrong revision. The recipe
// says the oldest key holds the lock, where oldest means lowest create
// revision, and that a release deletes the key. This one keeps one key per
// Locker and, to save a delete and a create, marks it "released" instead.
// But a Put to an existing key keeps its create revision: when the client
// locks again its key is still the oldest, so it jumps ahead of the holder
// that took the lock in between. Two holders, on a healthy cluster, and
// the fencing token goes backwards. Shown by the scenario
// lock/released-marker/healthy.
//
// newReleasedMarker returns the recipe's Locker for the lock called name.
func newReleasedMarker(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s/locker-%d", pfx, lockerIDs.Add(1))
	l := &releasedMarker{cli: cli, pfx: pfx, ttl: ttl, key: key, turn: make(chan struct{}, 1)}
	l.turn <- struct{}{}
	return l, nil
}

// releasedMarker is a lock ordered by create revision whose release leaves
// the holder's key in place and marks it released.
type releasedMarker struct {
	cli *clientv3.Client
	pfx string
	ttl time.Duration
	key string // the one key this Locker reuses: pfx/<locker id>

	turn chan struct{} // holds a token while no Held of this Locker is out
}

const (
	markWaiting  = "waiting"
	markReleased = "released"
)

// lockerIDs numbers Lockers that need an identity of their own. A counter,
// not randomness, so a run's keys are the same each time.
var lockerIDs atomic.Int64

var _ Locker = (*releasedMarker)(nil)

// Lock marks the Locker's key waiting, bound to a new lease (a Put that
// keeps the key's create revision if it exists), then waits until no
// other key that is not marked released is older.
func (l *releasedMarker) Lock(ctx context.Context) (Held, error) {
	select { // one holder per Locker: it has a single key
	case <-l.turn:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	h, err := l.lock(ctx)
	if err != nil {
		l.turn <- struct{}{}
	}
	return h, err
}

func (l *releasedMarker) lock(ctx context.Context) (Held, error) {
	g, err := grant(ctx, l.cli, l.pfx, l.ttl)
	if err != nil {
		return nil, err
	}
	if _, err := l.cli.Put(ctx, l.key, markWaiting, clientv3.WithLease(g.ID())); err != nil {
		abandon(ctx, g)
		return nil, fmt.Errorf("lock: %s: mark waiting: %w", l.key, err)
	}
	rev, err := l.waitOldest(ctx)
	if err != nil {
		abandon(ctx, g)
		return nil, err
	}
	return &held{
		cli: l.cli, key: l.key, rev: rev, token: rev, lease: g.ID(), done: g.Done(),
		release: func(ctx context.Context) error {
			// The mistake: mark, don't delete. Without a lease the mark
			// outlives the session, and with it the old create revision.
			_, err := l.cli.Put(ctx, l.key, markReleased)
			abandon(ctx, g)
			l.turn <- struct{}{}
			if err != nil {
				return fmt.Errorf("lock: %s: mark released: %w", l.key, err)
			}
			return nil
		},
	}, nil
}

// waitOldest re-reads the prefix after every change under it until the
// oldest key not marked released is ours, and returns our create revision.
func (l *releasedMarker) waitOldest(ctx context.Context) (int64, error) {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	var changes clientv3.WatchChan
	for {
		resp, err := l.cli.Get(ctx, l.pfx+"/", clientv3.WithPrefix(),
			clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
		if err != nil {
			return 0, fmt.Errorf("lock: %s: read queue: %w", l.key, err)
		}
		first, mine := -1, -1
		for i, kv := range resp.Kvs {
			if string(kv.Key) == l.key {
				mine = i
			}
			if first < 0 && string(kv.Value) != markReleased {
				first = i
			}
		}
		switch {
		case mine < 0:
			return 0, fmt.Errorf("%w: %s: key gone while waiting", ErrLeaseExpired, l.key)
		case first == mine:
			return resp.Kvs[mine].CreateRevision, nil
		}
		if changes == nil {
			changes = l.cli.Watch(wctx, l.pfx+"/", clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
		}
		wr, ok := <-changes
		if !ok || wr.Err() != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return 0, fmt.Errorf("lock: %s: watch queue: %v", l.key, wr.Err())
		}
	}
}
