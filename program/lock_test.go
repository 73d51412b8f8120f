package program_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/program"
)

// realCluster starts a cluster on the real clock: a program in another process
// dials etcd through real sockets, which the virtual clock's in-memory
// network does not have.
func realCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	return cluster.New(t, cluster.Config{Clock: cluster.ClockReal})
}

func TestLockThroughProcess(t *testing.T) {
	c := realCluster(t)
	ctx := clustertest.Context(t)
	cli := clustertest.Client(t, c, "c1")
	r := program.Lock("go-mutex", adapterArgv("mutex")...)
	require.Equal(t, adapterArgv("mutex"), r.Command)
	l, err := r.New(cli, "L", lock.Options{TTL: 2 * time.Second})
	require.NoError(t, err)
	defer l.(interface{ Close() error }).Close()

	h, err := l.Lock(ctx)
	require.NoError(t, err)
	require.Positive(t, h.Token(), "the adapter's token is its key's create revision")
	require.NotZero(t, h.(lock.Leaser).Lease())
	rev, err := h.(lock.Writer).Put(ctx, "etcdsim/data/L", "v")
	require.NoError(t, err)
	require.Greater(t, rev, h.Token())
	owned, err := h.(lock.Checker).Owned(ctx)
	require.NoError(t, err)
	require.True(t, owned)

	// A second holder waits; its Lock gives up with its ctx.
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = l.Lock(wctx)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)

	require.NoError(t, h.Unlock(ctx))
	require.ErrorIs(t, h.Unlock(ctx), lock.ErrNotHeld, "a second release")
	select {
	case <-h.Done():
	default:
		t.Fatal("Done is open after Unlock")
	}
	h2, err := l.Lock(ctx)
	require.NoError(t, err)
	require.Greater(t, h2.Token(), h.Token())
	require.NoError(t, h2.Unlock(ctx))
}

// TestCrashKillsProcess: a crash of the client closes its etcd client,
// and the process recipe kills its program; its holder's Done closes.
func TestCrashKillsProcess(t *testing.T) {
	c := realCluster(t)
	ctx := clustertest.Context(t)
	cli := clustertest.Client(t, c, "c1")
	l, err := program.Lock("go-mutex", adapterArgv("mutex")...).New(cli, "L", lock.Options{TTL: 2 * time.Second})
	require.NoError(t, err)
	h, err := l.Lock(ctx)
	require.NoError(t, err)
	exited := make(chan string, 1)
	l.(interface{ OnExit(func(string)) }).OnExit(func(s string) { exited <- s })
	require.NoError(t, c.CrashClient("c1"))
	select {
	case <-h.Done():
	case <-ctx.Done():
		t.Fatal("Done stayed open after the crash")
	}
	_, err = l.Lock(ctx)
	require.Error(t, err)
	require.Contains(t, err.Error(), "its client crashed")
	select {
	case s := <-exited:
		t.Fatalf("a crash the Env recorded was reported again as an exit: %s", s)
	default:
	}
	require.False(t, errors.Is(err, lock.ErrNotHeld))
}
