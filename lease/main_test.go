package lease_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/etcdsim/etcdsim/cluster"
)

// cluster.EtcdLeaks explains and ignores the goroutines etcd itself leaves
// behind; every goroutine of a guard must be gone once it is stopped.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, cluster.EtcdLeaks()...)
}
