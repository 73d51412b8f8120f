package rwmutex

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
	"github.com/etcdsim/etcdsim/lock"
)

// Sentinel errors. The errors the package returns wrap them with the lock
// or recipe involved, so test them with errors.Is.
var (
	// ErrBadName is returned for a lock asked for with an empty name.
	ErrBadName = errors.New("rwmutex: empty lock name")
	// ErrBadTTL is returned for a TTL etcd cannot grant as asked; it wraps
	// lease.ErrBadTTL as well.
	ErrBadTTL = errors.New("rwmutex: bad TTL")
	// ErrExpired is returned by Lock and RLock when the caller's key was
	// gone once the wait ended: its session's lease ended while it waited.
	ErrExpired = errors.New("rwmutex: session expired while waiting")
	// ErrUnknownRecipe is returned by Lookup for a name not registered.
	ErrUnknownRecipe = errors.New("rwmutex: no recipe named")
)

// Locker takes one named read-write lock on behalf of one process: any
// number of readers share it, a writer holds it alone. Each successful
// Lock or RLock is a holder, a lock.Held, whose Done and Unlock mean what
// they mean for a lock. Unless its documentation says otherwise a Locker
// serves one goroutine at a time, as the process's single thread.
//
// It may also have a method Close() error, which the scenarios call once
// when the simulated process it stands for crashes and at the end of the
// run, to stop what the recipe started for it; what Close does wrong, and
// goroutines the recipe leaves behind, are the recipe's fault, by the
// rules lock.Locker's documentation gives.
type Locker interface {
	// RLock blocks until the caller shares the lock with readers only, or
	// returns ctx's error once ctx ends.
	RLock(ctx context.Context) (lock.Held, error)
	// Lock blocks until the caller holds the lock alone, or returns ctx's
	// error once ctx ends.
	Lock(ctx context.Context) (lock.Held, error)
}

// Sessioner is implemented by a Locker whose holders wait and hold on one
// session of the process: Session opens it (or returns the one open) and
// tells its lease, so that a fault aimed at the process's session can find
// it while the process waits.
type Sessioner interface {
	Session(ctx context.Context) (clientv3.LeaseID, error)
}

// RequestCounter is implemented by a Locker that counts the requests its
// holders and waiters sent to etcd, to show what a wait costs.
type RequestCounter interface {
	Requests() int64
}

// DefaultPrefix is where read-write lock keys live when lock.Options.Prefix
// is "".
const DefaultPrefix = "etcdsim/rwmutex/"

// resolve checks the arguments every constructor takes and returns the
// lock's key prefix and TTL; the TTL defaults as lock.Options says.
func resolve(cli *clientv3.Client, name string, o lock.Options) (string, time.Duration, error) {
	if cli == nil {
		return "", 0, fmt.Errorf("rwmutex: %q: nil client", name)
	}
	if name == "" {
		return "", 0, ErrBadName
	}
	ttl := o.TTL
	if ttl == 0 {
		ttl = lock.DefaultTTL
	}
	if err := lease.CheckTTL(ttl); err != nil {
		return "", 0, fmt.Errorf("%w: lock %q: Options.TTL: %w", ErrBadTTL, name, err)
	}
	pfx := o.Prefix
	if pfx == "" {
		pfx = DefaultPrefix
	}
	return pfx + name, ttl, nil
}
