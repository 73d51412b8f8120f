package lock

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Hold is a Held made of a key and functions, for a library whose lock
// handle has methods of its own: a recipe returns &Hold{...} instead of
// declaring a type. It hands out no fencing token (Token is 0: declare
// Unfenced on the Locker). Its Done is Lost, and its Lease is LeaseID:
// give them where the library has them, since a Hold without Lost tells no
// one when the lock is lost, and one without LeaseID leaves no fault a
// lease to revoke.
//
//	ld, err := srv.LockWithTTL(ctx, dir, "me", ttl)
//	...
//	return &lock.Hold{Name: dir + "/locks", Release: ld.Unlock, Lost: session.Done(), LeaseID: session.Lease()}, nil
type Hold struct {
	// Name is the etcd key, or prefix, that stands for the holder (Key).
	Name string
	// Release unlocks, as Unlock does. nil means the library has no
	// unlock: Unlock returns an error wrapping errors.ErrUnsupported.
	Release func(ctx context.Context) error
	// Check asks etcd whether the holder still owns the lock, as
	// Checker's Owned does. nil means the library cannot tell: Owned
	// returns an error wrapping errors.ErrUnsupported.
	Check func(ctx context.Context) (bool, error)
	// Lost is closed when the library says the lock may be lost (Done):
	// its session's Done, say. nil means it never says.
	Lost <-chan struct{}
	// LeaseID is the lease the holder's key is on (Lease), 0 if the
	// library does not say: then no fault can revoke it.
	LeaseID clientv3.LeaseID
}

var (
	_ Checker = (*Hold)(nil)
	_ Leaser  = (*Hold)(nil)
)

func (h *Hold) Key() string             { return h.Name }
func (h *Hold) Token() int64            { return 0 }
func (h *Hold) Done() <-chan struct{}   { return h.Lost }
func (h *Hold) Lease() clientv3.LeaseID { return h.LeaseID }

func (h *Hold) Unlock(ctx context.Context) error {
	if h.Release == nil {
		return fmt.Errorf("lock: %s: the library has no unlock: %w", h.Name, errors.ErrUnsupported)
	}
	return h.Release(ctx)
}

func (h *Hold) Owned(ctx context.Context) (bool, error) {
	if h.Check == nil {
		return false, fmt.Errorf("lock: %s: the library cannot tell whether it still holds the lock: %w", h.Name, errors.ErrUnsupported)
	}
	return h.Check(ctx)
}
