package scenarios

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
)

// rwRecipe returns the scenario's read-write lock recipe.
func (s Scenario) rwRecipe() (rwmutex.Recipe, error) {
	return recipeOf(s.Workload.RWMutex, s.Workload.Recipe, rwmutex.Lookup)
}

// rwmutexWorkload runs the rwmutex family: clients c1…cReaders loop
// rlock → read → runlock, the others lock → write → unlock, with think
// time. A holder works for Hold, or until its Done closes; a writer then
// writes once to the resource the lock guards (a guarded-write, recorded
// just before it unlocks, so that a trigger can aim at the moment a
// writer lets go). A Locker that keeps a session per process tells its
// lease before each wait, recorded as a session operation, so that a
// fault can aim at a waiting client's session. A wait that fails because
// the session was lost is recorded as failed; any other that does not
// return within the patience as unknown.
func (w *world) rwmutexWorkload(ctx context.Context) error {
	r, err := w.s.rwRecipe()
	if err != nil {
		return err
	}
	var g errgroup.Group
	for i := 1; i <= w.s.Workload.Clients; i++ {
		name := fmt.Sprintf("c%d", i)
		reader := i <= w.s.Workload.Readers
		g.Go(func() error { return w.rwClient(ctx, r, name, reader) })
	}
	return g.Wait()
}

// rwLocker makes client name's Locker, on a client made anew after a crash.
func (w *world) rwLocker(ctx context.Context, r rwmutex.Recipe, name string) (rwmutex.Locker, error) {
	cli, err := w.client(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	wl := w.s.Workload
	return construct(ctx, w, FamilyRWMutex, r.Name, name, "rwmutex.Locker", func() (rwmutex.Locker, error) {
		return r.New(cli, wl.Key, lock.Options{TTL: wl.TTL.D()})
	})
}

// rwClient is one client of the rwmutex workload.
func (w *world) rwClient(ctx context.Context, r rwmutex.Recipe, name string, reader bool) error {
	wl := w.s.Workload
	l, err := w.rwLocker(ctx, r, name)
	if err != nil {
		return err
	}
	rec := w.env.Recorder()
	think := w.thinker(name)
	take, take1 := checker.KindAcquire, l.Lock
	if reader {
		take, take1 = checker.KindRLock, l.RLock
	}
	var session clientv3.LeaseID
	for n := 0; wl.Ops == 0 || n < wl.Ops; n++ {
		var held lock.Held
		err := w.step(ctx, name, func() error {
			if sn, ok := l.(rwmutex.Sessioner); ok {
				sctx, cancel := context.WithTimeout(ctx, wl.Patience.D())
				id, err := sn.Session(sctx)
				cancel()
				if err == nil && id != session {
					session = id
					p := rec.Invoke(ctx, name, checker.KindSession, wl.Key, checker.Input{})
					p.OK(ctx, checker.Output{Lease: int64(id)})
				}
			}
			p := rec.Invoke(ctx, name, take, wl.Key, checker.Input{})
			lctx, cancel := context.WithTimeout(ctx, wl.Patience.D())
			h, err := take1(lctx)
			cancel()
			switch {
			case err == nil && isNil(h):
				err = nilResult(FamilyRWMutex, r.Name, name, string(take), "lock.Held")
				p.Fail(ctx, err)
				return err
			case errors.Is(err, rwmutex.ErrExpired):
				return p.Fail(ctx, err)
			case err != nil:
				p.Unknown(ctx, err)
				return nil
			}
			held = h
			var id int64
			if ls, ok := h.(lock.Leaser); ok {
				id = int64(ls.Lease())
			}
			return p.OK(ctx, checker.Output{Token: h.Token(), Lease: id})
		})
		if err == nil && held != nil {
			err = w.rwHold(ctx, name, n, held, reader)
			if err == nil {
				held = nil
			}
		}
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if l, err = w.rwLocker(ctx, r, name); err != nil {
				return err
			}
			take1, session = l.Lock, 0
			if reader {
				take1 = l.RLock
			}
			continue
		case ctx.Err() != nil:
			if held != nil {
				w.rwRelease(ctx, name, held, reader)
			}
			return nil
		case err != nil:
			if held != nil {
				w.rwRelease(ctx, name, held, reader)
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := sleep(ctx, think()); err != nil {
			return nil
		}
	}
	return nil
}

// rwHold is one hold: work for Hold unless Done closes first, a writer's
// write, and the release.
func (w *world) rwHold(ctx context.Context, name string, n int, h lock.Held, reader bool) error {
	wl := w.s.Workload
	lost := false
	err := w.step(ctx, name, func() error {
		t := time.NewTimer(wl.Hold.D())
		defer t.Stop()
		select {
		case <-t.C:
		case <-h.Done():
			lost = true // a careful holder stops once its session may be gone
		case <-ctx.Done():
			return ctx.Err()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !reader && !lost {
		err := w.step(ctx, name, func() error {
			p := w.env.Recorder().Invoke(ctx, name, checker.KindGuardedWrite, wl.Key,
				checker.Input{Value: fmt.Sprintf("%s-%d", name, n), Token: h.Token()})
			return p.OK(ctx, checker.Output{})
		})
		if err != nil {
			return err
		}
	}
	return w.step(ctx, name, func() error {
		w.rwRelease(ctx, name, h, reader)
		return nil
	})
}

// rwRelease unlocks h and records it, as release does for a lock.
func (w *world) rwRelease(ctx context.Context, name string, h lock.Held, reader bool) {
	give := checker.KindRelease
	if reader {
		give = checker.KindRUnlock
	}
	p := w.env.Recorder().Invoke(ctx, name, give, w.s.Workload.Key, checker.Input{})
	uctx, cancel := finishing(ctx, 10*time.Second, w.s.Workload.TTL.D())
	defer cancel()
	ctx = context.WithoutCancel(ctx)
	switch err := h.Unlock(uctx); {
	case err == nil, errors.Is(err, lock.ErrNotHeld):
		p.OK(ctx, checker.Output{})
	default:
		p.Unknown(ctx, err)
	}
}
