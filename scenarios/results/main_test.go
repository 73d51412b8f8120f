package results_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/etcdsim/etcdsim/cluster"
)

// The example runs a real cluster, whose members leave etcd's own
// in-process client behind; cluster.EtcdLeaks ignores exactly those
// goroutines.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, cluster.EtcdLeaks()...)
}
