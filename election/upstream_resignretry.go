package election

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// BROKEN (deliberately): etcd #22123 (open as of
// v3.7.3; fixes proposed in etcd PRs #22124, #22211 and #22437).
// concurrency.Election.Resign forgets the term — its leader key, revision
// and session — whether or not its delete was answered. When the request
// never reaches etcd (the caller's deadline passes while the leader is
// cut off), Resign returns the error and the key stays; the Resign the
// caller tries again returns nil at once, deleting nothing. The process
// believes it stepped down while its key, on a session that lives on,
// still leads: no other candidate can win while the session lives, and
// the process's next Campaign on that session finds the old key and wins
// at once, with the old term. Shown by the scenario
// upstream/etcd-22123/resign-retry: the leader is cut off as it resigns,
// its retried Resign returns nil, and it leads again with the term it had
// resigned.
//
// newResignRetry is upstream's Resign, tried again until it returns nil,
// by a process with one session for its life (see resignRetrier).
func newResignRetry(cli *clientv3.Client, prefix string, opts Options) (Elector, error) {
	return newResignRetrier(cli, prefix, opts, upstreamResignAttempt)
}

// upstreamResignAttempt is concurrency.Election.Resign, unchanged.
func upstreamResignAttempt(ctx context.Context, _ *clientv3.Client, el *concurrency.Election, _ string, _ int64) error {
	return el.Resign(ctx)
}
