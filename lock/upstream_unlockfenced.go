package lock

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// newUnlockRetryFenced is the caller of etcd #22082 with the fix proposed
// upstream (etcd PR #22115): the release deletes the key in one
// transaction only if it still has the create revision this Mutex
// acquired (Mutex.IsOwner). A release retried after the process locked
// again compares false and deletes nothing. Everything else — the one
// session per process, the new Mutex per Lock, the retry after the next
// Lock — is the broken recipe's, so the two differ in that transaction
// alone.
func newUnlockRetryFenced(cli *clientv3.Client, name string, opts Options) (Locker, error) {
	return newSessionLocker(cli, name, opts, fencedUnlock)
}

// fencedUnlock deletes mu's key if it is still the one mu acquired. A key
// gone or created again since is an error wrapping ErrNotHeld.
func fencedUnlock(ctx context.Context, cli *clientv3.Client, mu *concurrency.Mutex) error {
	resp, err := cli.Txn(ctx).If(mu.IsOwner()).Then(clientv3.OpDelete(mu.Key())).Commit()
	if err != nil {
		return err
	}
	if !resp.Succeeded {
		return fmt.Errorf("%w: %s: gone, or created again since this Mutex acquired it", ErrNotHeld, mu.Key())
	}
	return nil
}
