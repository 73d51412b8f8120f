package program_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/program"
	"github.com/etcdsim/etcdsim/recipes/barrier"
	"github.com/etcdsim/etcdsim/recipes/queue"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
	"github.com/etcdsim/etcdsim/recipes/stm"
)

// brokenOp is one op of a family a broken program breaks at: start builds
// the family's recipe value on the program, on the lock, election, queue
// or barrier called name (each case its own, as the cases run side by
// side on one cluster), and do sends the op (with
// what surrounds it in a workload), once to show the program is up and
// once more for the program to break at — or, with first set, only once,
// the program breaking at that first one.
type brokenOp struct {
	name  string // the family and op
	op    string // the op as the protocol names it
	first bool   // the program breaks at the first, not the second
	start func(cfg program.Config, cli *clientv3.Client, name string) (any, error)
	do    func(ctx context.Context, v any) error
}

// badTTL is the TTL of the broken programs' sessions: 1 s on an idle
// machine, whole seconds more on a loaded one (patience.Scale). The
// programs run on the real clock and keep their leases alive themselves;
// under load and the race detector a program starved of the CPU for a
// second lost its lease before the op that shows it up ("lease expired
// while campaigning").
var badTTL = max(time.Second, patience.Scale(time.Second).Round(time.Second))

var brokenOps = []brokenOp{
	{name: "lock/acquire", op: "acquire",
		start: func(cfg program.Config, cli *clientv3.Client, name string) (any, error) {
			return program.LockWith("bad", cfg).New(cli, name, lock.Options{TTL: badTTL})
		},
		do: func(ctx context.Context, v any) error {
			h, err := v.(lock.Locker).Lock(ctx)
			if err == nil {
				err = h.Unlock(ctx)
			}
			return err
		}},
	{name: "election/campaign", op: "campaign",
		start: func(cfg program.Config, cli *clientv3.Client, name string) (any, error) {
			return program.ElectionWith("bad", cfg).New(cli, name, election0)
		},
		do: func(ctx context.Context, v any) error {
			l, err := v.(electionElector).Campaign(ctx, "v")
			if err == nil {
				err = l.Resign(ctx)
			}
			return err
		}},
	{name: "rwmutex/acquire", op: "acquire",
		start: func(cfg program.Config, cli *clientv3.Client, name string) (any, error) {
			return program.RWMutexWith("bad", cfg).New(cli, name, lock.Options{TTL: badTTL})
		},
		do: func(ctx context.Context, v any) error {
			h, err := v.(rwLocker).RLock(ctx)
			if err == nil {
				err = h.Unlock(ctx)
			}
			return err
		}},
	{name: "queue/enqueue", op: "enqueue",
		start: func(cfg program.Config, cli *clientv3.Client, name string) (any, error) {
			return program.QueueWith("bad", cfg).New(cli, name)
		},
		do: func(ctx context.Context, v any) error { return v.(queueQueue).Enqueue(ctx, "x") }},
	{name: "barrier/enter", op: "enter",
		start: func(cfg program.Config, cli *clientv3.Client, name string) (any, error) {
			return program.BarrierWith("bad", cfg).New(cli, name, 1, lock.Options{TTL: badTTL})
		},
		do: func(ctx context.Context, v any) error {
			err := v.(doubleBarrier).Enter(ctx)
			if err == nil {
				err = v.(doubleBarrier).Leave(ctx)
			}
			return err
		}},
	{name: "plain-barrier/hold", op: "hold",
		start: func(cfg program.Config, cli *clientv3.Client, name string) (any, error) {
			return program.PlainBarrierWith("bad", cfg).New(cli, name)
		},
		do: func(ctx context.Context, v any) error {
			err := v.(plainBarrier).Hold(ctx)
			if err == nil {
				err = v.(plainBarrier).Release(ctx)
			}
			return err
		}},
	{name: "register/get", op: "get",
		start: func(cfg program.Config, cli *clientv3.Client, name string) (any, error) {
			return program.RegisterWith("bad", cfg).New(context.Background(), cli, badTTL)
		},
		do: func(ctx context.Context, v any) error { _, err := v.(clientv3.KV).Get(ctx, "k"); return err }},
	{name: "stm/begin", op: "begin",
		start: func(cfg program.Config, cli *clientv3.Client, name string) (any, error) {
			return program.STMWith("bad", cfg).New(cli)
		},
		do: func(ctx context.Context, v any) error {
			_, err := v.(stm.Txner).Txn(ctx, func(tx stm.Tx) error { tx.Put("k", "v"); return nil })
			return err
		}},
	{name: "discovery/register", op: "register", first: true,
		start: func(cfg program.Config, cli *clientv3.Client, name string) (any, error) {
			return program.RegistrarWith("bad", cfg).New(cli, name, "127.0.0.1:7001", discovery.Options{TTL: badTTL})
		},
		do: func(ctx context.Context, v any) error { return v.(discovery.Registrar).Register(ctx) }},
	{name: "discovery/watch", op: "watch", first: true,
		start: func(cfg program.Config, cli *clientv3.Client, name string) (any, error) {
			return program.ResolverWith("bad", cfg).New(cli, name, discovery.Options{})
		},
		do: func(ctx context.Context, v any) error { // the resolver sends watch on its own
			<-ctx.Done()
			return ctx.Err()
		}},
}

// TestBadInput: a program that breaks the protocol at any family's op is
// killed, and the report of its exit names what it wrote and the
// operation pending; every later call fails at once, naming why.
func TestBadInput(t *testing.T) {
	c := realCluster(t)
	for _, mode := range []struct {
		name string
		mode string
		want []string // in the exit report; OP is the op broken at
	}{
		{"exits", "exit", []string{"exited (exit status 1)", `"op":"OP"`, "adapter: giving up"}},
		{"not JSON", "garbage", []string{`wrote "lock acquired!", which is not a JSON object`, `; pending: {"id":`, `"op":"OP"`}},
		{"an answer to nothing sent", "stranger", []string{`which was not sent or was answered already`, `"op":"OP"`}},
		{"late", "late", []string{"did not answer OP (id ", "s; pending: "}},
		{"never", "silent", []string{"did not answer OP (id ", "s; pending: "}},
	} {
		for _, bo := range brokenOps {
			t.Run(mode.name+"/"+bo.name, func(t *testing.T) {
				// Each case mostly waits for a program, on a client of its
				// own: they wait side by side.
				t.Parallel()
				ctx := clustertest.Context(t)
				name := mode.mode + "-" + strings.ReplaceAll(bo.name, "/", "-")
				cli := clustertest.Client(t, c, "c-"+name)
				at := mode.mode + ":" + bo.op
				if bo.first {
					at += ":1"
				}
				v, err := bo.start(program.Config{Argv: adapterArgv(at), Grace: time.Second, Limit: patience.Scale(3 * time.Second)}, cli, name)
				require.NoError(t, err, "the constructor does not wait for the program")
				defer v.(interface{ Close() error }).Close()
				exited := make(chan string, 1)
				v.(faults.Program).OnExit(func(s string) { exited <- s })

				if !bo.first {
					require.NoError(t, bo.do(ctx, v), "the program is up")
				}
				wait := 300 * time.Millisecond // what a late program misses
				if bo.first {                  // room for init first, however slowly the program started
					wait = patience.Scale(5 * time.Second)
				}
				octx, cancel := context.WithTimeout(ctx, wait)
				err = bo.do(octx, v)
				cancel()
				require.Error(t, err)
				var why string
				select {
				case why = <-exited:
				case <-ctx.Done():
					t.Fatal("the broken program was never reported")
				}
				for _, w := range mode.want {
					require.Contains(t, why, strings.ReplaceAll(w, "OP", bo.op))
				}
				if !bo.first {
					err = bo.do(ctx, v)
					require.Error(t, err, "every later call fails at once")
					require.Contains(t, err.Error(), "gone")
				}
			})
		}
	}
}

// TestNoInit: a program that exits before answering its first line fails
// the first Lock, naming the program and its exit; the constructor, which
// must not block, has returned already.
func TestNoInit(t *testing.T) {
	c := realCluster(t)
	cli := clustertest.Client(t, c, "c1")
	l, err := program.Lock("bad", adapterArgv("noinit")...).New(cli, "L", lock.Options{TTL: time.Second})
	require.NoError(t, err)
	defer l.(interface{ Close() error }).Close()
	_, err = l.Lock(clustertest.Context(t))
	require.ErrorContains(t, err, "ping, the first line")
	require.ErrorContains(t, err, "exit status 3")
}

// TestNoCommand: a recipe with no command or a program that cannot start.
func TestNoCommand(t *testing.T) {
	c := realCluster(t)
	cli := clustertest.Client(t, c, "c1")
	_, err := program.Lock("bad").New(cli, "L", lock.Options{TTL: time.Second})
	require.ErrorContains(t, err, "no command")
	_, err = program.Lock("bad", "/nonexistent/adapter").New(cli, "L", lock.Options{TTL: time.Second})
	require.ErrorContains(t, err, `starting ["/nonexistent/adapter"]`)
	require.False(t, errors.Is(err, lock.ErrNotHeld))
}

// The families' interfaces, by short names for brokenOps.
type (
	electionElector = interface {
		Campaign(ctx context.Context, value string) (election.Leadership, error)
	}
	rwLocker      = rwmutex.Locker
	queueQueue    = queue.Queue
	doubleBarrier = barrier.DoubleBarrier
	plainBarrier  = barrier.Barrier
)

var election0 = election.Options{TTL: badTTL}

// TestPrestartNotReady: a program that does not answer its first line
// within the ready limit is named, with the limit.
func TestPrestartNotReady(t *testing.T) {
	c := realCluster(t)
	cli := clustertest.Client(t, c, "c1")
	_, err := program.Prestart(clustertest.Context(t), program.Config{Argv: adapterArgv("sleepy"), Limit: 500 * time.Millisecond},
		map[string]*clientv3.Client{"c1": cli})
	require.ErrorContains(t, err, `client c1: program [`)
	require.ErrorContains(t, err, "did not answer its first line, a ping, within 500ms: it never said it was ready")
}
