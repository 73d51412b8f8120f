package process_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios/process"
)

// TestBadInput: a program that breaks the protocol is killed, and both the
// call pending and the report of its exit name what it wrote and which
// operation was pending.
func TestBadInput(t *testing.T) {
	c := realCluster(t)
	for _, tc := range []struct {
		name string
		mode string
		want []string // in the exit report
	}{
		{"exits", "exit", []string{"exited (exit status 1)", `"op":"acquire"`, "adapter: giving up"}},
		{"not JSON", "garbage", []string{`wrote "lock acquired!", which is not a JSON object`, `pending: {"id":4,"op":"acquire"`}},
		{"an answer to nothing sent", "stranger", []string{`an answer to id 104, which was not sent or was answered already`, `"op":"acquire"`}},
		{"late", "late", []string{"did not answer acquire (id 4, sent as {", "s; pending: "}},
		{"never", "silent", []string{"did not answer acquire", "s; pending: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			cli := clustertest.Client(t, c, "c-"+tc.mode)
			r := process.LockWith("bad", process.Config{Argv: adapterArgv(tc.mode), Grace: time.Second})
			l, err := r.New(cli, "L", lock.Options{TTL: time.Second})
			require.NoError(t, err, "init is answered in every mode")
			defer l.(interface{ Close() error }).Close()
			exited := make(chan string, 1)
			l.(interface{ OnExit(func(string)) }).OnExit(func(s string) { exited <- s })

			h, err := l.Lock(ctx) // the program is up
			require.NoError(t, err)
			require.NoError(t, h.Unlock(ctx))
			lctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			_, err = l.Lock(lctx)
			cancel()
			require.Error(t, err)
			var why string
			select {
			case why = <-exited:
			case <-ctx.Done():
				t.Fatal("the broken program was never reported")
			}
			for _, w := range tc.want {
				require.Contains(t, why, w)
			}
			// Every later call fails at once, naming why.
			_, err = l.Lock(ctx)
			require.Error(t, err)
			require.True(t, strings.Contains(err.Error(), "gone"), err.Error())
		})
	}
}

// TestNoInit: a program that exits before answering init fails the first
// Lock, naming the program and its exit; the constructor, which must not
// block, has returned already.
func TestNoInit(t *testing.T) {
	c := realCluster(t)
	cli := clustertest.Client(t, c, "c1")
	l, err := process.Lock("bad", adapterArgv("noinit")...).New(cli, "L", lock.Options{TTL: time.Second})
	require.NoError(t, err)
	defer l.(interface{ Close() error }).Close()
	_, err = l.Lock(clustertest.Context(t))
	require.ErrorContains(t, err, "init")
	require.ErrorContains(t, err, "exit status 3")
}

// TestNoCommand: a recipe with no command or a program that cannot start.
func TestNoCommand(t *testing.T) {
	c := realCluster(t)
	cli := clustertest.Client(t, c, "c1")
	_, err := process.Lock("bad").New(cli, "L", lock.Options{TTL: time.Second})
	require.ErrorContains(t, err, "no command")
	_, err = process.Lock("bad", "/nonexistent/adapter").New(cli, "L", lock.Options{TTL: time.Second})
	require.ErrorContains(t, err, `starting ["/nonexistent/adapter"]`)
	require.False(t, errors.Is(err, lock.ErrNotHeld))
}
