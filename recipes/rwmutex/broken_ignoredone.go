package rwmutex

import (
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lock"
)

// BROKEN (deliberately): a reader that ignores its session's Done. Reads
// feel harmless, so the reader's loop reads on without watching whether
// its session still lives. Cut off from the cluster past its TTL, its
// lease expires on the server, its key goes, and a waiting writer takes
// the lock while the reader still reads: the reader sees a half-written
// state. Writers of the recipe watch Done as they should. Shown by the
// scenario rwmutex/reader-ignores-done/isolate-reader.
func newIgnoreDone(cli *clientv3.Client, name string, opts lock.Options) (Locker, error) {
	return newProcess(cli, name, opts, true, true)
}
