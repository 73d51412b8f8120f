package election

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/lease"
)

// holder is what keeps a campaign's lease alive: a *lease.Guard, or for
// the upstream recipe a concurrency.Session.
type holder interface {
	Done() <-chan struct{}
	ID() clientv3.LeaseID
	Close(ctx context.Context) error
}

var _ holder = (*lease.Guard)(nil)

// sessionHolder is a concurrency.Session as a holder.
type sessionHolder struct{ s *concurrency.Session }

func (h sessionHolder) Done() <-chan struct{} { return h.s.Done() }
func (h sessionHolder) ID() clientv3.LeaseID  { return h.s.Lease() }
func (h sessionHolder) Close(context.Context) error {
	if err := h.s.Close(); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return fmt.Errorf("election: close session of lease %x: %w", int64(h.s.Lease()), err)
	}
	return nil
}

// office carries out Proclaim and Resign for a leadership. nil means the
// client-side transactions below; the server recipe brings its own.
type office interface {
	proclaim(ctx context.Context, l *leadership, value string) error
	resign(ctx context.Context, l *leadership) error
}

// leadership is the Leadership of every recipe in this package.
type leadership struct {
	cli    *clientv3.Client
	key    string
	term   int64
	h      holder
	office office
	end    func(holder) // tells the Elector the holder is closed

	mu    sync.Mutex // guards value and ended
	value string
	ended bool
}

func (l *leadership) Term() int64           { return l.term }
func (l *leadership) Key() string           { return l.key }
func (l *leadership) Done() <-chan struct{} { return l.h.Done() }

// Lease is the lease the leader key is on (Leaser).
func (l *leadership) Lease() clientv3.LeaseID { return l.h.ID() }

var _ Leaser = (*leadership)(nil)

func (l *leadership) Value() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.value
}

// live reports whether the leadership has neither been resigned nor lost
// its lease.
func (l *leadership) live() bool {
	l.mu.Lock()
	ended := l.ended
	l.mu.Unlock()
	select {
	case <-l.h.Done():
		return false
	default:
		return !ended
	}
}

func (l *leadership) Proclaim(ctx context.Context, value string) error {
	if !l.live() {
		return fmt.Errorf("%w: %s (term %d) has ended", ErrNotLeader, l.key, l.term)
	}
	var err error
	if l.office != nil {
		err = l.office.proclaim(ctx, l, value)
	} else {
		err = l.txnProclaim(ctx, value)
	}
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.value = value
	l.mu.Unlock()
	return nil
}

// txnProclaim puts the new value if the key is still the one this term
// created.
func (l *leadership) txnProclaim(ctx context.Context, value string) error {
	resp, err := l.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(l.key), "=", l.term)).
		Then(clientv3.OpPut(l.key, value, clientv3.WithLease(l.h.ID()))).
		Commit()
	if err != nil {
		return fmt.Errorf("election: proclaim %s: %w", l.key, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("%w: %s (term %d) is gone", ErrNotLeader, l.key, l.term)
	}
	return nil
}

// Resign deletes the leader key if this term still holds it, then revokes
// the lease. The leadership ends locally whatever the outcome.
func (l *leadership) Resign(ctx context.Context) error {
	l.mu.Lock()
	ended := l.ended
	l.ended = true
	l.mu.Unlock()
	if ended {
		return fmt.Errorf("%w: %s (term %d) was resigned already", ErrNotLeader, l.key, l.term)
	}
	var err error
	if l.office != nil {
		err = l.office.resign(ctx, l)
	} else {
		err = l.txnResign(ctx)
	}
	return errors.Join(err, l.release(ctx))
}

// release closes the holder, revoking the lease.
func (l *leadership) release(ctx context.Context) error {
	err := l.h.Close(ctx)
	if l.end != nil {
		l.end(l.h)
	}
	return err
}

// txnResign deletes the key if it is still the one this term created.
func (l *leadership) txnResign(ctx context.Context) error {
	resp, err := l.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(l.key), "=", l.term)).
		Then(clientv3.OpDelete(l.key)).
		Commit()
	if err != nil {
		return fmt.Errorf("election: resign %s: %w", l.key, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("%w: %s (term %d) was lost before the resign", ErrNotLeader, l.key, l.term)
	}
	return nil
}
