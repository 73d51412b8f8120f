package program

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/barrier"
)

// Barrier is a double-barrier recipe called name whose every client is a
// process of argv (docs/protocol.md, family "barrier"): init names the
// barrier and its count, and the ops are enter and leave.
func Barrier(name string, argv ...string) barrier.Recipe {
	return BarrierWith(name, Config{Argv: argv})
}

// BarrierWith is Barrier with the program's settings.
func BarrierWith(name string, cfg Config) barrier.Recipe {
	return barrier.Recipe{
		Name:    name,
		Summary: fmt.Sprintf("a double barrier in a process of its own per client: %q", cfg.Argv),
		Command: cfg.Argv,
		New: func(cli *clientv3.Client, key string, count int, opts lock.Options) (barrier.DoubleBarrier, error) {
			switch {
			case key == "":
				return nil, barrier.ErrBadName
			case count < 1:
				return nil, fmt.Errorf("%w: %d, want 1 or more", barrier.ErrBadCount, count)
			}
			s, err := begin(cfg, cli, request{Family: recipe.Barrier, Name: key, Count: count, TTL: ttlSeconds(opts.TTL, lock.DefaultTTL)}, nil)
			if err != nil {
				return nil, err
			}
			return &doubleBarrier{s}, nil
		},
	}
}

// doubleBarrier is one client's side of a double barrier: its program.
type doubleBarrier struct{ *session }

func (b *doubleBarrier) Enter(ctx context.Context) error {
	_, err := b.op(ctx, request{Op: "enter"}, codeErr{codeFull, barrier.ErrFull}, codeErr{codeLeaseLost, barrier.ErrLeaseLost})
	return err
}

func (b *doubleBarrier) Leave(ctx context.Context) error {
	_, err := b.op(ctx, request{Op: "leave"})
	return err
}

// PlainBarrier is a plain-barrier recipe called name whose every client
// is a program run from argv (docs/protocol.md, family "plain-barrier"): hold,
// release and wait.
func PlainBarrier(name string, argv ...string) barrier.PlainRecipe {
	return PlainBarrierWith(name, Config{Argv: argv})
}

// PlainBarrierWith is PlainBarrier with the program's settings.
func PlainBarrierWith(name string, cfg Config) barrier.PlainRecipe {
	return barrier.PlainRecipe{
		Name:    name,
		Summary: fmt.Sprintf("a plain barrier in a process of its own per client: %q", cfg.Argv),
		Command: cfg.Argv,
		New: func(cli *clientv3.Client, key string) (barrier.Barrier, error) {
			if key == "" {
				return nil, barrier.ErrBadName
			}
			s, err := begin(cfg, cli, request{Family: recipe.PlainBarrier, Name: key}, nil)
			if err != nil {
				return nil, err
			}
			return &plainBarrier{s}, nil
		},
	}
}

// plainBarrier is one client's side of a plain barrier: its program.
type plainBarrier struct{ *session }

func (b *plainBarrier) Hold(ctx context.Context) error {
	_, err := b.op(ctx, request{Op: "hold"}, codeErr{codeHeld, barrier.ErrHeld})
	return err
}

func (b *plainBarrier) Release(ctx context.Context) error {
	_, err := b.op(ctx, request{Op: "release"})
	return err
}

func (b *plainBarrier) Wait(ctx context.Context) error {
	_, err := b.op(ctx, request{Op: "wait"})
	return err
}
