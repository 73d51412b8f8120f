package election

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// BROKEN (deliberately): etcd #21128 (open as of
// v3.7.3; the fix is etcd PR #21165). When Campaign's wait for the older
// candidates fails with anything but its own context's end — a watch that
// resumes from a revision etcd has compacted answers ErrCompacted —
// Campaign returns the error and forgets its session, but leaves its
// candidate key in etcd; the Resign the caller then calls does nothing.
// The key stays as long as the round's lease lives. Once it is the oldest
// it is the election's leader, which no process knows it is: every other
// candidate waits behind it, and the election has no leader for as long
// as the process lives. Shown by the scenario
// upstream/etcd-21128/compacted-campaign: a waiting candidate is cut off
// while the leader's lease is revoked and etcd compacts, and the run ends
// without a leader.
//
// newCampaignRetry is upstream's Campaign, withdrawn after an error with
// upstream's Resign, by a caller that opens a session per round (see
// retryingCampaigner).
func newCampaignRetry(cli *clientv3.Client, prefix string, opts Options) (Elector, error) {
	return newRetryingCampaigner(cli, prefix, opts, upstreamResign)
}

// upstreamResign is concurrency.Election.Resign, unchanged.
func upstreamResign(ctx context.Context, _ *clientv3.Client, el *concurrency.Election) error {
	return el.Resign(ctx)
}
