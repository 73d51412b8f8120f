package vitess_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/etcdsim/etcdsim/cluster"

	"example.com/vitess"
)

func TestMain(m *testing.M) {
	vitess.SetLeaseTTL(electionTTL)
	// glog, which vitess logs through, flushes its files from a goroutine
	// it starts in its init, for the process's life.
	goleak.VerifyTestMain(m, append(cluster.EtcdLeaks(), goleak.IgnoreTopFunction("github.com/golang/glog.(*fileSink).flushDaemon"))...)
}

// electionTTL is the election workload's lease TTL, which etcd2topo reads
// from one package variable for the whole process.
const electionTTL = time.Second
