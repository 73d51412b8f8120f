package lock

import (
	"context"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): a lock whose holder keeps its lease alive with
// clientv3's KeepAlive under clientv3.WithRequireLeader(context.Background()),
// the calling pattern of etcd PR #21126 (https://github.com/etcd-io/etcd/pull/21126),
// and takes the channel's close for the end of its lease, as the channel's
// documentation invites. When the member the client's lease stream is on
// loses its leader, clientv3 closes every keep-alive channel opened under
// WithRequireLeader; the holder stops, and leaves its key, which its lease
// is about to take with it. But clientv3 keeps the lease in its table with
// no channel left, and once its lease stream has moved to a member with a
// leader — half a second later — it goes on renewing the lease for as long
// as the client lives. The key stays: nobody holds the lock, and nobody
// can take it, the process itself included. A context that can be
// cancelled (concurrency.Session's) hides the bug: cancelling it removes
// the lease from clientv3's table.
//
// newRequireLeaderKeepAlive returns the recipe's Locker for the lock
// called name.
func newRequireLeaderKeepAlive(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	return newRequireLeaderLocker(cli, name, opts, false)
}

// newRequireLeaderCancel is requireleader-keepalive with the guard a user
// can write today: the keep-alive's context is one the holder can cancel,
// and it cancels it when the channel closes, as concurrency.Session does.
// clientv3 then forgets the lease, which expires a TTL after its last
// renewal, and the lock is free again. etcd PR #21126 makes clientv3 stop
// renewing a lease whose channels all closed for want of a leader.
func newRequireLeaderCancel(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	return newRequireLeaderLocker(cli, name, opts, true)
}

// requireLeaderLocker is a lock taken by creating the lock's own key, if
// it is absent, on a lease of the holder's own, kept alive by a KeepAlive
// that requires a leader.
type requireLeaderLocker struct {
	cli    *clientv3.Client
	key    string
	ttl    time.Duration
	id     string // written as the key's value, to show who holds it
	cancel bool   // cancel the keep-alive's context when its channel closes
}

var _ Locker = (*requireLeaderLocker)(nil)

func newRequireLeaderLocker(cli *clientv3.Client, name string, opts Options, cancel bool) (*requireLeaderLocker, error) {
	pfx, ttl, err := opts.resolve(cli, name)
	if err != nil {
		return nil, err
	}
	return &requireLeaderLocker{cli: cli, key: pfx, ttl: ttl, id: fmt.Sprintf("locker-%d", lockerIDs.Add(1)), cancel: cancel}, nil
}

// Lock grants a lease, keeps it alive, and creates the key on it if it is
// absent; otherwise it waits for the key's delete and tries again. It
// gives up when its keep-alive channel closes: it takes the lease for gone.
func (l *requireLeaderLocker) Lock(ctx context.Context) (Held, error) {
	g, err := l.cli.Grant(ctx, int64(l.ttl/time.Second))
	if err != nil {
		return nil, fmt.Errorf("lock: %s: grant: %w", l.key, err)
	}
	kctx, stop := clientv3.WithRequireLeader(context.Background()), func() {}
	if l.cancel {
		kctx, stop = context.WithCancel(kctx)
	}
	ch, err := l.cli.KeepAlive(kctx, g.ID)
	if err != nil {
		stop()
		l.cli.Revoke(context.WithoutCancel(ctx), g.ID) //nolint:errcheck // best effort: the error below is the news
		return nil, fmt.Errorf("lock: %s: keep-alive of lease %x: %w", l.key, int64(g.ID), err)
	}
	done := make(chan struct{})
	go func() {
		for range ch {
		}
		stop() // the guard; a no-op for the broken recipe
		close(done)
	}()
	for {
		resp, err := l.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(l.key), "=", 0)).
			Then(clientv3.OpPut(l.key, l.id, clientv3.WithLease(g.ID))).
			Commit()
		if err == nil && resp.Succeeded {
			rev := resp.Header.Revision
			return &held{
				cli: l.cli, key: l.key, rev: rev, token: rev, lease: g.ID, done: done,
				release: func(ctx context.Context) error { return l.release(ctx, rev, g.ID, done, stop) },
			}, nil
		}
		if err == nil {
			err = l.waitDelete(ctx, resp.Header.Revision+1, done)
		}
		if err != nil {
			// A lease whose channel closed is gone, the holder believes:
			// nothing to revoke.
			if !closed(done) {
				stop()
				l.cli.Revoke(context.WithoutCancel(ctx), g.ID) //nolint:errcheck // best effort: the lease expires anyway
			}
			return nil, fmt.Errorf("lock: %s: %w", l.key, err)
		}
	}
}

// waitDelete waits from revision from on for the key's delete; it fails
// when the lease's keep-alive channel has closed (done) or ctx ends.
func (l *requireLeaderLocker) waitDelete(ctx context.Context, from int64, done <-chan struct{}) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	wch := l.cli.Watch(wctx, l.key, clientv3.WithRev(from), clientv3.WithFilterPut())
	for {
		select {
		case <-done:
			return fmt.Errorf("keep-alive channel closed while waiting: the lease is taken for gone")
		case wr, ok := <-wch:
			if !ok {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("still held: %w", err)
				}
				return fmt.Errorf("watch closed")
			}
			if err := wr.Err(); err != nil {
				return fmt.Errorf("watch: %w", err)
			}
			for _, ev := range wr.Events {
				if ev.Type == mvccpb.DELETE {
					return nil
				}
			}
		}
	}
}

// release deletes the key if it is still the holder's and revokes the
// lease. A holder whose keep-alive channel has closed believes its lease,
// and the key with it, gone or about to go: it touches nothing and says
// the lock was lost.
func (l *requireLeaderLocker) release(ctx context.Context, rev int64, id clientv3.LeaseID, done <-chan struct{}, stop func()) error {
	if closed(done) {
		return fmt.Errorf("%w: %s: keep-alive channel of lease %x closed: the lease is taken for gone", ErrNotHeld, l.key, int64(id))
	}
	return releaseLeased(ctx, l.cli, l.key, rev, id, stop)
}

// closed reports whether c is closed.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
