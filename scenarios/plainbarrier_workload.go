package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/recipes/barrier"
)

// plainBarrierRecipe returns the scenario's plain-barrier recipe.
func (s Scenario) plainBarrierRecipe() (barrier.PlainRecipe, error) {
	return recipeOf(s.Workload.PlainBarrier, s.Workload.Recipe, barrier.LookupPlain)
}

// plainBarrierWorkload runs the plain-barrier family: c1 holds the
// barrier Key, and the other clients wait at it.
//
// The holder, round after round, puts the barrier up, works for Hold —
// writing its work to etcd Writes times, spread over the hold, so that
// the revision moves on while the barrier is up — takes it down, and
// leaves it down: for Patience after the first release and every third
// one after it, else for a think. Patience is above the checker's bound
// in every registered scenario, so a waiter that slept through such a
// release is still waiting past the bound when it gives up.
//
// Each waiter thinks, waits, and thinks again, so the waiters' first
// waits are spread over a think. Every hold, release and
// wait is recorded: a call that does not return within the patience is
// unknown, a hold refused because the barrier was up already failed (it
// was the holder's own, from a hold whose answer was lost). A hold or
// release that fails is tried again in the same round. The work writes
// are not recorded: nothing judges them.
func (w *world) plainBarrierWorkload(ctx context.Context) error {
	r, err := w.s.plainBarrierRecipe()
	if err != nil {
		return err
	}
	var g errgroup.Group
	g.Go(func() error { return w.plainHolder(ctx, r, "c1") })
	for i := 2; i <= w.s.Workload.Clients; i++ {
		name := fmt.Sprintf("c%d", i)
		g.Go(func() error { return w.plainWaiter(ctx, r, name) })
	}
	return g.Wait()
}

// plainBarrierOf makes client name's side of the barrier, on a client
// made anew after a crash.
func (w *world) plainBarrierOf(ctx context.Context, r barrier.PlainRecipe, name string) (*clientv3.Client, barrier.Barrier, error) {
	cli, err := w.client(ctx, name)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	wl := w.s.Workload
	b, err := construct(ctx, w, FamilyPlainBarrier, r.Name, name, "barrier.Barrier", func() (barrier.Barrier, error) {
		return r.New(cli, wl.Key)
	})
	return cli, b, err
}

// plainCall records one call of client name at the barrier: ok, failed
// when the barrier refused a hold, unknown on any other error or when
// the patience ran out. It returns whether the call was ok or refused.
func (w *world) plainCall(ctx context.Context, name string, kind checker.Kind, in checker.Input, call func(context.Context) error) (done bool, err error) {
	wl := w.s.Workload
	err = w.step(ctx, name, func() error {
		p := w.env.Recorder().Invoke(ctx, name, kind, wl.Key, in)
		cctx, cancel := context.WithTimeout(ctx, wl.Patience.D())
		defer cancel()
		switch err := call(cctx); {
		case errors.Is(err, barrier.ErrHeld):
			p.Fail(ctx, err)
			done = true
			return nil
		case err != nil:
			p.Unknown(ctx, err)
			return nil
		}
		done = true
		return p.OK(ctx, checker.Output{})
	})
	return done, err
}

// plainHolder is the holder of the plain-barrier workload.
func (w *world) plainHolder(ctx context.Context, r barrier.PlainRecipe, name string) error {
	wl := w.s.Workload
	cli, b, err := w.plainBarrierOf(ctx, r, name)
	if err != nil {
		return ignoreEnd(ctx, err)
	}
	think := w.thinker(name)
	held := false
	for round := 1; wl.Ops == 0 || round <= wl.Ops; {
		kind, call := checker.KindHold, b.Hold
		if held {
			kind, call = checker.KindLift, b.Release
		}
		done, err := w.plainCall(ctx, name, kind, checker.Input{Value: strconv.Itoa(round)}, call)
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if cli, b, err = w.plainBarrierOf(ctx, r, name); err != nil {
				return ignoreEnd(ctx, err)
			}
			continue // the same call again, in the same round
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		case !done:
			continue
		}
		if !held {
			held = true
			if err := w.work(ctx, cli, round); err != nil {
				return nil
			}
			continue
		}
		held = false
		down := think()
		if round%3 == 1 {
			down = wl.Patience.D()
		}
		round++
		if err := sleep(ctx, down); err != nil {
			return nil
		}
	}
	return nil
}

// work is the holder's work during one hold: Writes writes of round to
// the key work/<Key>, spread evenly over Hold. A write that fails under
// a fault is of no consequence: it only moves the revision on.
func (w *world) work(ctx context.Context, cli *clientv3.Client, round int) error {
	wl := w.s.Workload
	every := wl.Hold.D() / time.Duration(max(1, wl.Writes))
	for i := range max(1, wl.Writes) {
		if err := sleep(ctx, every); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, every)
		cli.Put(wctx, "work/"+wl.Key, fmt.Sprintf("%d.%d", round, i)) //nolint:errcheck // traffic, not judged
		cancel()
	}
	return ctx.Err()
}

// plainWaiter is one waiter of the plain-barrier workload.
func (w *world) plainWaiter(ctx context.Context, r barrier.PlainRecipe, name string) error {
	wl := w.s.Workload
	_, b, err := w.plainBarrierOf(ctx, r, name)
	if err != nil {
		return ignoreEnd(ctx, err)
	}
	think := w.thinker(name)
	for n := 1; wl.Ops == 0 || n <= wl.Ops; n++ {
		if err := sleep(ctx, think()); err != nil {
			return nil
		}
		_, err := w.plainCall(ctx, name, checker.KindWait, checker.Input{}, b.Wait)
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if _, b, err = w.plainBarrierOf(ctx, r, name); err != nil {
				return ignoreEnd(ctx, err)
			}
			continue
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
