package election

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// newResignRetryFixed is the caller of etcd #22123 with the fix proposed
// upstream (etcd PRs #22124 and #22211: Resign keeps its state when its
// transaction fails, so that a retry runs it again). Each attempt runs the
// transaction Resign runs — delete the leader key if it still has the
// term's create revision — on the key and revision the term won, which a
// failed attempt leaves as they were. A retry is safe: the comparison
// keeps it from deleting a newer key. Everything else — one session per
// process, a new Election per campaign, a Resign tried until it returns
// nil — is the broken recipe's, so the two differ in what an attempt
// remembers alone.
func newResignRetryFixed(cli *clientv3.Client, prefix string, opts Options) (Elector, error) {
	return newResignRetrier(cli, prefix, opts, resignKeepingState)
}

// resignKeepingState deletes key if it still has create revision rev.
func resignKeepingState(ctx context.Context, cli *clientv3.Client, _ *concurrency.Election, key string, rev int64) error {
	_, err := cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", rev)).
		Then(clientv3.OpDelete(key)).
		Commit()
	return err
}
