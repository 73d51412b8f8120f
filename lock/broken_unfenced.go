package lock

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): A lock lease is a promise
// about the past: a holder that pauses (GC, swap, SIGSTOP, a slow disk)
// past its TTL loses the lock without running a line of code, the next
// waiter takes it, and when the first resumes it writes to the resource as
// if nothing happened. Kleppmann ("How to do distributed locking", 2016)
// argues that only a token checked by the resource can refuse that write;
// Jepsen's etcd 3.4.3 analysis (2020) observed exactly these overlapping
// holders with etcd locks, and etcd #10811 discusses why the lock API
// alone cannot prevent it. The lock itself is right; what breaks is the
// resource, which here cannot tell the stale holder from the current one.
// Shown by the scenario lock/unfenced/pause-holder: the resource accepts a
// write from a holder superseded while it was paused, where the same run
// with a token refuses it.
//
// newUnfenced returns the recipe's Locker for the lock called name.
func newUnfenced(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	m, err := NewMutex(cli, name, opts)
	if err != nil {
		return nil, err
	}
	return &unfenced{m: m}, nil
}

// unfenced is a correct concurrency.Mutex whose holders guard an external
// resource with the lock alone: they show no fencing token (Token is 0).
type unfenced struct{ m *Mutex }

var _ Locker = (*unfenced)(nil)

// Lock locks the mutex and hides the token.
func (l *unfenced) Lock(ctx context.Context) (Held, error) {
	h, err := l.m.Lock(ctx)
	if err != nil {
		return nil, err
	}
	h.(*held).token = 0
	return h, nil
}
