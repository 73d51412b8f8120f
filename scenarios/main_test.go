package scenarios_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/etcdsim/etcdsim/cluster"
)

// Scenarios run every recipe, the server-side ones included, whose members
// leave etcd's own in-process client behind; cluster.EtcdLeaks ignores
// exactly those goroutines. TestRecipeClose's recipes that block for good
// leave theirs in their runs' ended bubbles, where nothing can end them:
// what it tests is that the runs name them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, append(cluster.EtcdLeaks(),
		goleak.IgnoreAnyFunction("github.com/etcdsim/etcdsim/scenarios_test.foreverClose"),
		goleak.IgnoreAnyFunction("github.com/etcdsim/etcdsim/scenarios_test.leakyKeepAlive"))...)
}
