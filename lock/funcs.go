package lock

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Funcs is a Locker made of functions, for a library whose lock has
// methods of its own: a recipe returns &Funcs{...} instead of declaring a
// type.
//
//	srv, err := etcd2topo.NewServer(addrs, root)
//	...
//	return &lock.Funcs{NoFencing: "the descriptor exposes no revision", Stop: srv.Close,
//		Acquire: func(ctx context.Context) (lock.Held, error) {
//			ld, err := srv.LockWithTTL(ctx, dir, "me", ttl)
//			if err != nil {
//				return nil, err
//			}
//			return &lock.Hold{Name: dir, Release: ld.Unlock, Check: lock.ErrCheck(ld.Check, isNoNode)}, nil
//		}}, nil
type Funcs struct {
	// Acquire takes the lock, as Lock does.
	Acquire func(ctx context.Context) (Held, error)
	// NoFencing says, in a phrase, why the library's holders hand out no
	// fencing token (Unfenced). "" means they do.
	NoFencing string
	// Stop ends the library's client; Close calls it once. nil means
	// there is nothing to end.
	Stop func()

	mu     sync.Mutex // guards closed
	closed bool
}

var (
	_ Locker   = (*Funcs)(nil)
	_ Unfenced = (*Funcs)(nil)
)

// Lock calls Acquire; after Close it returns an error.
func (f *Funcs) Lock(ctx context.Context) (Held, error) {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	switch {
	case closed:
		return nil, errors.New("lock: Lock after Close")
	case f.Acquire == nil:
		return nil, errors.New("lock: Funcs with no Acquire: the library's lock call is missing")
	}
	return f.Acquire(ctx)
}

func (f *Funcs) Unfenced() string { return f.NoFencing }

// Close calls Stop the first time.
func (f *Funcs) Close() error {
	f.mu.Lock()
	closed := f.closed
	f.closed = true
	f.mu.Unlock()
	if !closed && f.Stop != nil {
		f.Stop()
	}
	return nil
}

// ErrCheck makes a Hold's Check of a library's check that answers with an
// error alone: nil means the holder still owns the lock; an error notHeld
// says is the lock's loss (owned false, no error); any other error leaves
// ownership unknown and is returned. A nil notHeld takes every error as
// unknown.
func ErrCheck(check func(ctx context.Context) error, notHeld func(error) bool) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		if check == nil {
			return false, fmt.Errorf("lock: the library cannot tell whether it still holds the lock: %w", errors.ErrUnsupported)
		}
		err := check(ctx)
		if err != nil && notHeld != nil && notHeld(err) {
			return false, nil
		}
		return err == nil, err
	}
}
