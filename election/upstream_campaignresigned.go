package election

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// newCampaignRetryResigned is the caller of etcd #21128 with the fix
// proposed upstream (etcd PR #21165: Campaign resigns on any failure):
// after a failed Campaign the candidate key is deleted if it still has the
// create revision Campaign gave it, the transaction Resign would have run
// had Campaign not forgotten its session. Everything else — a session per
// round, kept for the process's life — is the broken recipe's, so the two
// differ in that transaction alone.
func newCampaignRetryResigned(cli *clientv3.Client, prefix string, opts Options) (Elector, error) {
	return newRetryingCampaigner(cli, prefix, opts, deleteCandidate)
}

// deleteCandidate deletes el's candidate key if it is still the one its
// Campaign created.
func deleteCandidate(ctx context.Context, cli *clientv3.Client, el *concurrency.Election) error {
	if el.Key() == "" {
		return nil // Campaign resigned itself: its context ended
	}
	_, err := cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(el.Key()), "=", el.Rev())).
		Then(clientv3.OpDelete(el.Key())).
		Commit()
	if err != nil {
		return fmt.Errorf("election: withdraw %s after a failed campaign: %w", el.Key(), err)
	}
	return nil
}
