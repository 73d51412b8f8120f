package program_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/program"
)

// TestPauseFreezesProcess: a client's pause freezes its program, which
// answers nothing until the heal; the time frozen does not count against
// its answers, so the watchdog leaves it be, and it goes on after the heal.
func TestPauseFreezesProcess(t *testing.T) {
	c := realCluster(t)
	ctx := clustertest.Context(t)
	env := faults.NewEnv(c, faults.Config{})
	cli := clustertest.Client(t, c, "c1")
	l, err := program.LockWith("go-mutex", program.Config{Argv: adapterArgv("mutex"), Grace: 300 * time.Millisecond}).
		New(cli, "L", lock.Options{TTL: 2 * time.Second})
	require.NoError(t, err)
	defer l.(interface{ Close() error }).Close()
	exited := make(chan string, 1)
	env.AttachProgram("c1", l.(faults.Program))
	l.(faults.Program).OnExit(func(s string) { exited <- s }) // after the Env's: the test's own

	h, err := l.Lock(ctx) // init answered, before the freeze
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))

	env.Gate().Pause("c1")
	lctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	start := time.Now()
	_, err = l.Lock(lctx)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded, "a frozen program answers nothing")
	time.Sleep(1500 * time.Millisecond) // well past timeout_ms plus the grace, frozen
	select {
	case s := <-exited:
		t.Fatalf("a frozen program was taken as late: %s", s)
	default:
	}
	env.Gate().Resume("c1")
	h, err = l.Lock(ctx) // the late acquire was answered and released on the thaw; this one waits its turn
	require.NoError(t, err, "after %v", time.Since(start))
	require.NoError(t, h.Unlock(ctx))
	select {
	case s := <-exited:
		t.Fatalf("the thawed program was taken as broken: %s", s)
	default:
	}
}
