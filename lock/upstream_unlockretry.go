package lock

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// BROKEN (deliberately): etcd #22082 (open as of
// v3.7.3; the fix is etcd PR #22115). concurrency.Mutex.Unlock deletes the
// holder's key by name. When the delete commits but its answer is lost,
// Unlock returns an error and the Mutex keeps its key, so the caller can
// try again. Meanwhile the process locks again with the same session: a
// new Mutex on it creates the same key, "<prefix>/<lease in hex>", at a
// newer create revision. The retried Unlock of the old Mutex then deletes
// that newer key: the process goes on believing it holds the lock while
// the next waiter takes it. Shown by the scenario
// upstream/etcd-22082/unlock-retry: the holder's answers are lost as it
// releases, and the run shows two holders at once.
//
// newUnlockRetry is upstream's Mutex.Unlock, retried after the next Lock
// as the report's caller does (see sessionLocker).
func newUnlockRetry(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	return newSessionLocker(cli, name, opts, upstreamUnlock)
}

// upstreamUnlock is concurrency.Mutex.Unlock, unchanged.
func upstreamUnlock(ctx context.Context, _ *clientv3.Client, mu *concurrency.Mutex) error {
	return mu.Unlock(ctx)
}
