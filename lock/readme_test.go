package lock_test

import (
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// myLock stands for the user's own recipe in the README's example. Its
// TTL outlasts the 4 s a client takes to give up on a connection to the
// isolated leader (keep-alive 2 s, then 2 s for the answer), so renewals
// reach the majority before the holder's lease guard calls the lease lost;
// with the default 5 s the guard sometimes gives up first, as it should.
func myLock(t testing.TB, cli *clientv3.Client) lock.Locker {
	l, err := lock.NewMutex(cli, "jobs", lock.Options{TTL: 10 * time.Second})
	require.NoError(t, err)
	return l
}

// TestMyLockSurvivesLeaderIsolation is the README's example, kept here so
// that it always compiles and passes.
func TestMyLockSurvivesLeaderIsolation(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) { // a synctest bubble: the cluster runs on its virtual clock
		c := cluster.New(t, cluster.Config{}) // 3 members, closed when the test ends
		ctx := clustertest.Context(t)         // bounded: the test fails rather than hangs
		cli := clustertest.Client(t, c, "c1") // a client whose every link the harness controls
		lead, err := c.Leader(ctx)            // the leader a quorum agrees on
		require.NoError(t, err)
		require.NoError(t, c.Isolate(lead.Name())) // a partition: nothing crosses, not even lease renewals
		held, err := myLock(t, cli).Lock(ctx)      // your recipe, behind lock.Locker
		require.NoError(t, err)                    // the majority side elected a new leader and serves
		require.NoError(t, held.Unlock(ctx))
	})
}
