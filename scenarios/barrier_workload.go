package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/barrier"
)

// barrierRecipe returns the scenario's double-barrier recipe.
func (s Scenario) barrierRecipe() (barrier.Recipe, error) {
	return recipeOf(s.Workload.Barrier, s.Workload.Recipe, barrier.Lookup)
}

// barrierWorkload runs the barrier family: every client, from its
// arrival (see Workload.Stagger), goes through the double barrier Key, of
// count Clients, round after round: enter, work for Hold, leave, think.
// Each enter and leave names its round ("1", "2", …) and each enter the
// count, as BarrierSafety reads them. A call that fails is tried again in
// the same round, so that the clients' rounds stay in step; one that does
// not return within the patience is recorded as unknown, and an enter
// turned away from a full barrier as failed.
func (w *world) barrierWorkload(ctx context.Context) error {
	r, err := w.s.barrierRecipe()
	if err != nil {
		return err
	}
	var g errgroup.Group
	for i := 1; i <= w.s.Workload.Clients; i++ {
		name := fmt.Sprintf("c%d", i)
		late := time.Duration(i-1) * w.s.Workload.Stagger.D()
		g.Go(func() error {
			if err := sleep(ctx, late); err != nil {
				return nil
			}
			return w.barrierClient(ctx, r, name)
		})
	}
	return g.Wait()
}

// barrierOf makes client name's side of the barrier, on a client made
// anew after a crash.
func (w *world) barrierOf(ctx context.Context, r barrier.Recipe, name string) (barrier.DoubleBarrier, error) {
	cli, err := w.client(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	wl := w.s.Workload
	return construct(ctx, w, FamilyBarrier, r.Name, name, "barrier.DoubleBarrier", func() (barrier.DoubleBarrier, error) {
		return r.New(cli, wl.Key, wl.Clients, lock.Options{TTL: wl.TTL.D()})
	})
}

// barrierClient is one client of the barrier workload.
func (w *world) barrierClient(ctx context.Context, r barrier.Recipe, name string) error {
	wl := w.s.Workload
	b, err := w.barrierOf(ctx, r, name)
	if err != nil {
		return ignoreEnd(ctx, err)
	}
	think := w.thinker(name)
	entered := false
	for round := 1; wl.Ops == 0 || round <= wl.Ops; {
		kind, call := checker.KindEnter, b.Enter
		in := checker.Input{Value: strconv.Itoa(round), Token: int64(wl.Clients)}
		if entered {
			kind, call, in.Token = checker.KindLeave, b.Leave, 0
		}
		ok := false
		err := w.step(ctx, name, func() error {
			p := w.env.Recorder().Invoke(ctx, name, kind, wl.Key, in)
			cctx, cancel := context.WithTimeout(ctx, wl.Patience.D())
			defer cancel()
			switch err := call(cctx); {
			case errors.Is(err, barrier.ErrFull):
				p.Fail(ctx, err) // turned away, its key gone with its session
				return nil
			case err != nil:
				p.Unknown(ctx, err)
				return nil
			}
			ok = true
			return p.OK(ctx, checker.Output{})
		})
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if b, err = w.barrierOf(ctx, r, name); err != nil {
				return ignoreEnd(ctx, err)
			}
			entered = false
			continue
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
		if !ok {
			continue // the same call again, in the same round
		}
		if !entered {
			entered = true
			if err := sleep(ctx, wl.Hold.D()); err != nil {
				return nil
			}
			continue
		}
		entered = false
		round++
		if err := sleep(ctx, think()); err != nil {
			return nil
		}
	}
	return nil
}
