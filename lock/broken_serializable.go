package lock

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): from etcd #6829: reads are
// linearizable by default, and clientv3.WithSerializable asks the member
// the client talks to for whatever it has applied, without asking the
// leader. It is faster and still answers on a member cut off from the
// leader, which is why it is tempting for a frequent "am I still the
// holder?" check. But that member no longer hears of the lease expiring
// nor of the next holder: it keeps saying "yes, your key is there" long
// after the majority has given the lock to someone else. A stale yes.
// Shown by the scenario lock/serializable-check/partition-holder-member,
// which cuts the holder's member off from the rest.
//
// newSerializableCheck returns the recipe's Locker for the lock called name.
func newSerializableCheck(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	m, err := NewMutex(cli, name, opts)
	if err != nil {
		return nil, err
	}
	return &serializableCheck{m: m}, nil
}

// serializableCheck is a correct concurrency.Mutex whose holders check
// that they still own the lock with a serializable read.
type serializableCheck struct{ m *Mutex }

var (
	_ Locker  = (*serializableCheck)(nil)
	_ Checker = (*serializableHeld)(nil)
)

// Lock locks the mutex; the Held's Owned reads serializably.
func (l *serializableCheck) Lock(ctx context.Context) (Held, error) {
	h, err := l.m.Lock(ctx)
	if err != nil {
		return nil, err
	}
	return &serializableHeld{h.(*held)}, nil
}

// serializableHeld overrides Owned.
type serializableHeld struct{ *held }

// Owned reads the holder's key from the local member only.
func (h *serializableHeld) Owned(ctx context.Context) (bool, error) {
	resp, err := h.cli.Get(ctx, h.key, clientv3.WithSerializable()) // the mistake
	if err != nil {
		return false, fmt.Errorf("lock: check owner of %s: %w", h.key, err)
	}
	return len(resp.Kvs) == 1 && resp.Kvs[0].CreateRevision == h.rev, nil
}
