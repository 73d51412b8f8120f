package gozero_test

import (
	"fmt"
	"os"
	"testing"
	_ "unsafe" // for go:linkname

	"github.com/zeromicro/go-zero/core/syncx"
	"go.uber.org/goleak"

	"github.com/etcdsim/etcdsim/cluster"
)

// goZeroClients is go-zero's cache of etcd clients, one per set of
// endpoints, which it keeps for the process's life and offers no way to
// close: every Publisher and Subscriber of the tests left one behind
// (each cluster's client endpoints are new). verifyNone closes them after
// the tests, so that goleak can judge everything else.
//
//go:linkname goZeroClients github.com/zeromicro/go-zero/core/discov/internal.connManager
var goZeroClients *syncx.ResourceManager

// verifyNone runs the tests, closes go-zero's etcd clients, and fails if
// goroutines are left, apart from etcd's own (cluster.EtcdLeaks) and two
// of go-zero's that nothing can end:
//   - core/proc's signal handler, started in its init for the process's
//     life, to stop services on SIGTERM and dump goroutines on SIGUSR1;
//   - core/discov's watch on each etcd client's connection state
//     (internal.(*stateWatcher).watch), which waits for a change with no
//     deadline, so that the change of a closed connection never comes.
func verifyNone(m *testing.M) {
	code := m.Run()
	if err := goZeroClients.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "closing go-zero's etcd clients: %v\n", err)
	}
	if code == 0 {
		opts := append(cluster.EtcdLeaks(),
			goleak.IgnoreTopFunction("github.com/zeromicro/go-zero/core/proc.init.1.func1"),
			goleak.IgnoreAnyFunction("github.com/zeromicro/go-zero/core/discov/internal.(*stateWatcher).watch"))
		if err := goleak.Find(opts...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
