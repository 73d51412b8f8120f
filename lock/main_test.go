package lock

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/etcdsim/etcdsim/cluster"
)

// The server-side lock recipe (v3lock) leaves etcd's own in-process client
// running inside each member; cluster.EtcdLeaks explains and ignores
// exactly those goroutines.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, cluster.EtcdLeaks()...)
}
