package rwmutex

import (
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lock"
)

// BROKEN (deliberately): etcd #16221 (https://github.com/etcd-io/etcd/issues/16221),
// unfixed in v3.7.3. recipes.RWMutex.Lock waits for the keys ahead of its
// own to go, then returns nil; it never looks at its own key again. When
// the session's lease ends during the wait — revoked, or expired while the
// process was cut off — the key goes with it, the wait still ends, and
// Lock reports the lock taken. The next writer finds no key ahead of its
// own and takes the lock too. concurrency.Mutex had the same hole and now
// reads its key after the wait (ErrSessionExpired); RWMutex does not.
// Shown by the scenario rwmutex/unchecked/revoke-waiter.
func newUnchecked(cli *clientv3.Client, name string, opts lock.Options) (Locker, error) {
	return newProcess(cli, name, opts, false, false)
}
