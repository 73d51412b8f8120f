package scenarios

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/lock"
	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"
)

// leased is implemented by a Held that knows its lease, so that faults
// aimed at a holder's lease can find it.
type leased interface{ Lease() clientv3.LeaseID }

// lockRecipe returns the scenario's lock recipe.
func (s Scenario) lockRecipe() (lock.Recipe, error) {
	if s.Workload.Lock != nil {
		return *s.Workload.Lock, nil
	}
	return lock.Lookup(s.Workload.Recipe)
}

// lockWorkload runs the lock family: each client loops acquire → critical
// section → release, with think time. In the critical section it writes
// to a fenced resource the lock guards, presenting its token, so that
// MutualExclusion and Fencing judge what the resource accepted. A Lock
// that does not return within the patience is recorded as unknown, never
// as failed: it may have taken the lock.
func (w *world) lockWorkload(ctx context.Context) error {
	r, err := w.s.lockRecipe()
	if err != nil {
		return err
	}
	store := &lock.FencedResource{}
	var g errgroup.Group
	for i := 1; i <= w.s.Workload.Clients; i++ {
		name := fmt.Sprintf("c%d", i)
		g.Go(func() error { return w.locker(ctx, r, name, store) })
	}
	return g.Wait()
}

// locker is one client of the lock workload.
func (w *world) locker(ctx context.Context, r lock.Recipe, name string, store *lock.FencedResource) error {
	wl := w.s.Workload
	rec := w.env.Recorder()
	key := wl.Key
	var l lock.Locker
	fresh := func() error { // a new process: a new client and Locker
		cli, err := w.env.Cluster().Client(name)
		if err != nil {
			return err
		}
		l, err = r.New(cli, key, lock.Options{TTL: wl.TTL.D()})
		return err
	}
	if err := fresh(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for n := 0; wl.Ops == 0 || n < wl.Ops; n++ {
		var held lock.Held
		err := w.step(ctx, name, func() error {
			p := rec.Invoke(ctx, name, checker.KindAcquire, key, checker.Input{})
			lctx, cancel := context.WithTimeout(ctx, wl.Patience.D())
			h, err := l.Lock(lctx)
			cancel()
			if err != nil {
				p.Unknown(ctx, err)
				return nil
			}
			out := checker.Output{Token: h.Token()}
			if ls, ok := h.(leased); ok {
				out.Lease = int64(ls.Lease())
			}
			held = h
			return p.OK(ctx, out)
		})
		if err == nil && held != nil {
			err = w.critical(ctx, name, key, held, store)
			if err == nil {
				held = nil // released
			}
		}
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if err := fresh(); err != nil {
				return fmt.Errorf("%s: restarting: %w", name, err)
			}
			continue
		case ctx.Err() != nil:
			if held != nil {
				release(ctx, rec, name, key, held)
			}
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := sleep(ctx, wl.Think.D()); err != nil {
			return nil
		}
	}
	return nil
}

// critical is a holder's critical section: a last look at its lease, the
// write to the fenced resource (a pause aimed at the holder when it
// acquired lands between that look and the write, as a GC pause would),
// work, then the release.
func (w *world) critical(ctx context.Context, name, key string, h lock.Held, store *lock.FencedResource) error {
	rec := w.env.Recorder()
	lost := false
	select {
	case <-h.Done():
		lost = true // a careful holder does not write once its lease may be gone
	default:
	}
	err := w.step(ctx, name, func() error {
		if lost {
			return nil
		}
		value := fmt.Sprintf("%s-%d", name, h.Token())
		p := rec.Invoke(ctx, name, checker.KindGuardedWrite, key, checker.Input{Value: value, Token: h.Token()})
		if err := store.Write(h.Token(), name, value); err != nil {
			return p.Fail(ctx, err)
		}
		return p.OK(ctx, checker.Output{})
	})
	if err == nil {
		err = w.step(ctx, name, func() error { return sleep(ctx, w.s.Workload.Hold.D()) })
	}
	if err != nil {
		return err
	}
	return w.step(ctx, name, func() error {
		release(ctx, rec, name, key, h)
		return nil
	})
}

// release unlocks h and records it. A holder that finds it had lost the
// lock (ErrNotHeld) holds it no more: that is recorded as done.
func release(ctx context.Context, rec *checker.Recorder, name, key string, h lock.Held) {
	p := rec.Invoke(ctx, name, checker.KindRelease, key, checker.Input{})
	ctx = context.WithoutCancel(ctx) // a release is finished even as the run ends
	uctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	switch err := h.Unlock(uctx); {
	case err == nil:
		p.OK(ctx, checker.Output{})
	case errors.Is(err, lock.ErrNotHeld):
		p.OK(ctx, checker.Output{})
	default:
		p.Unknown(ctx, err)
	}
}

// step runs one step of client name once the gate lets it: not while it
// is paused; with ErrRestarted if it crashed since its last step.
func (w *world) step(ctx context.Context, name string, do func() error) error {
	if err := w.env.Gate().Step(ctx, name); err != nil {
		return err
	}
	return do()
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
