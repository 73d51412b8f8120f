package program

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/recipes/stm"
)

// STM is a transaction recipe called name whose every client is a process
// of argv (docs/protocol.md, family "stm"). The transaction's code stays
// in Go and the program isolates it: begin opens an attempt, get reads
// through it, and commit sends the writes the attempt staged. The
// program answers commit with error "conflict" when it will not commit
// what the attempt read (the attempt is then run again), and is sent
// abort when the code gives up.
func STM(name string, argv ...string) stm.Recipe { return STMWith(name, Config{Argv: argv}) }

// STMWith is STM with the program's settings.
func STMWith(name string, cfg Config) stm.Recipe {
	return stm.Recipe{
		Name:    name,
		Summary: fmt.Sprintf("transactions isolated by a process of its own per client: %q", cfg.Argv),
		Command: cfg.Argv,
		New: func(cli *clientv3.Client) (stm.Txner, error) {
			s, err := begin(cfg, cli, request{Family: recipe.STM}, nil)
			if err != nil {
				return nil, err
			}
			return &txner{s}, nil
		},
	}
}

// errConflict is what commit's "conflict" stands for: run the attempt
// again.
var errConflict = errors.New("conflict")

// txner is one client's transactions: its program.
type txner struct{ *session }

// Txn runs attempts until one commits, apply fails, or ctx ends.
func (t *txner) Txn(ctx context.Context, apply func(stm.Tx) error) (int64, error) {
	for {
		rev, err := t.attempt(ctx, apply)
		if !errors.Is(err, errConflict) {
			return rev, err
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
}

func (t *txner) attempt(ctx context.Context, apply func(stm.Tx) error) (int64, error) {
	a, err := t.op(ctx, request{Op: "begin"})
	if err != nil {
		return 0, err
	}
	if a.Handle == "" {
		err := errors.New("answered begin with no handle: an attempt needs one for get and commit")
		t.fail(err)
		return 0, fmt.Errorf("process: %w", err)
	}
	tx := &attempt{t: t, ctx: ctx, handle: a.Handle}
	if err := apply(tx); err != nil {
		t.op(context.WithoutCancel(ctx), request{Op: "abort", Handle: a.Handle}) //nolint:errcheck // the attempt is given up either way
		return 0, err
	}
	a, err = t.op(ctx, request{Op: "commit", Handle: a.Handle, Writes: tx.writes}, codeErr{codeConflict, errConflict})
	if err != nil {
		return 0, err
	}
	return a.Revision, nil
}

// attempt is one attempt's Tx: reads go to the program, writes wait for
// the commit.
type attempt struct {
	t      *txner
	ctx    context.Context
	handle string
	writes []write
}

func (a *attempt) Get(key string) (string, int64, error) {
	ans, err := a.t.op(a.ctx, request{Op: "get", Handle: a.handle, Key: key})
	if err != nil {
		return "", 0, err
	}
	return ans.Value, ans.ModRev, nil
}

func (a *attempt) Put(key, value string) {
	a.writes = append(a.writes, write{Key: key, Value: value})
}
