package rwmutex

import (
	"context"
	"fmt"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lock"
)

var _ lock.Leaser = (*held)(nil)

// held is one hold of a read-write lock, a reader's or a writer's.
type held struct {
	key   string // the holder's key; the lock's prefix if the recipe did not look it up
	token int64  // create revision of key, 0 if not looked up
	lease clientv3.LeaseID
	done  <-chan struct{}

	unlock func(ctx context.Context) error

	mu       sync.Mutex // guards released
	released bool
}

func (h *held) Key() string             { return h.key }
func (h *held) Token() int64            { return h.token }
func (h *held) Done() <-chan struct{}   { return h.done }
func (h *held) Lease() clientv3.LeaseID { return h.lease }

// Unlock releases the hold once; a second call is an error wrapping
// lock.ErrNotHeld.
func (h *held) Unlock(ctx context.Context) error {
	h.mu.Lock()
	again := h.released
	h.released = true
	h.mu.Unlock()
	if again {
		return fmt.Errorf("%w: %s: released already", lock.ErrNotHeld, h.key)
	}
	return h.unlock(ctx)
}
