package lock

import (
	"context"
	"errors"
	"fmt"
)

// Hold is a Held made of a key and functions, for a library whose lock
// handle has methods of its own: a recipe returns &Hold{...} instead of
// declaring a type. It hands out no fencing token (Token is 0: declare
// Unfenced on the Locker) and its Done is nil — the library tells no one
// when the lock is lost.
//
//	ld, err := srv.LockWithTTL(ctx, dir, "me", ttl)
//	...
//	return &lock.Hold{Name: dir + "/locks", Release: ld.Unlock}, nil
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
}

var _ Checker = (*Hold)(nil)

func (h *Hold) Key() string           { return h.Name }
func (h *Hold) Token() int64          { return 0 }
func (h *Hold) Done() <-chan struct{} { return nil }

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
