package scenarios

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/lock"
	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"
)

// lockRecipe returns the scenario's lock recipe.
func (s Scenario) lockRecipe() (lock.Recipe, error) {
	return recipeOf(s.Workload.Lock, s.Workload.Recipe, lock.Lookup)
}

// lockWorkload runs the lock family: each client is a process whose
// threads loop acquire → critical section → release, with think time. In
// the critical section a holder does read-modify-writes on the resources
// the lock guards (see hold), so that MutualExclusion and Fencing judge
// what the resources accepted. A Lock that does not return within the
// patience is recorded as unknown, never as failed: it may have taken the
// lock.
func (w *world) lockWorkload(ctx context.Context) error {
	r, err := w.s.lockRecipe()
	if err != nil {
		return err
	}
	res := &lockResources{}
	var procs []*lockProcess
	for i := 1; i <= w.s.Workload.Clients; i++ { // every process made before any thread runs
		p := &lockProcess{w: w, r: r, name: fmt.Sprintf("c%d", i)}
		if err := p.start(ctx); err != nil {
			return err // the run's end closes the Lockers made
		}
		procs = append(procs, p)
	}
	var g errgroup.Group
	for _, p := range procs {
		for j := 1; j <= w.s.Workload.Threads; j++ {
			thread := p.name
			if w.s.Workload.Threads > 1 {
				thread = fmt.Sprintf("%s/%d", p.name, j)
			}
			g.Go(func() error { return w.locker(ctx, p, thread, res) })
		}
	}
	return g.Wait()
}

// lockProcess is one lock client: an etcd client and the Locker its
// threads share, both made anew when the process restarts after a crash
// (the crashed process's Locker is closed then, the last one as the run
// ends: see adopt).
type lockProcess struct {
	w    *world
	r    lock.Recipe
	name string

	mu  sync.Mutex // guards cli, l and gen
	cli *clientv3.Client
	l   lock.Locker
	gen int // counts starts; a restart by one thread serves them all
}

// start makes the process's client and Locker: at the run's start and
// after a crash, as a restarted process would.
func (p *lockProcess) start(ctx context.Context) error {
	cli, err := p.w.client(ctx, p.name) // pinned or not, as Run made it; a restarted client keeps its links
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	wl := p.w.s.Workload
	l, err := construct(ctx, p.w, FamilyLock, p.r.Name, p.name, "lock.Locker", func() (lock.Locker, error) {
		return p.r.New(cli, wl.Key, lock.Options{TTL: wl.TTL.D()})
	})
	if err != nil {
		return err
	}
	p.w.notes.declare(FamilyLock, p.name, l)
	p.cli, p.l = cli, l
	p.gen++
	return nil
}

// locker returns the process's current Locker, its client and its
// generation.
func (p *lockProcess) locker() (lock.Locker, *clientv3.Client, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.l, p.cli, p.gen
}

// crashed reports whether the process is down: crashed and not yet back.
func (p *lockProcess) crashed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cli.Ctx().Err() != nil
}

// restart starts the process afresh unless another thread has done so
// since generation gen.
func (p *lockProcess) restart(ctx context.Context, gen int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gen != gen {
		return nil
	}
	if err := p.start(ctx); err != nil {
		return fmt.Errorf("restarting: %w", err)
	}
	return nil
}

// locker is one thread of the lock workload.
func (w *world) locker(ctx context.Context, p *lockProcess, name string, res *lockResources) error {
	wl := w.s.Workload
	think := w.thinker(name)
	rec := w.env.Recorder()
	key := wl.Key
	for n := 0; wl.Ops == 0 || n < wl.Ops; n++ {
		l, cli, gen := p.locker()
		r := p.r
		var held lock.Held
		var watch *lostWatch
		err := w.step(ctx, name, func() error {
			p := rec.Invoke(ctx, name, checker.KindAcquire, key, checker.Input{})
			lctx, cancel := context.WithTimeout(ctx, wl.Patience.D())
			h, err := l.Lock(lctx)
			cancel()
			if err == nil && isNil(h) {
				err = nilResult(FamilyLock, r.Name, name, "Lock", "lock.Held")
				p.Fail(ctx, err)
				return err
			}
			if err != nil {
				p.Unknown(ctx, err)
				return nil
			}
			out := checker.Output{Token: h.Token(), Lease: w.holderLease(r, name, h)}
			held = h
			err = p.OK(ctx, out)
			watch = w.watchLost(ctx, name, key, h, cli) // after the acquire is recorded
			return err
		})
		if err == nil && held != nil {
			err = w.hold(ctx, name, held, res, watch)
			if err == nil {
				held = nil // released
			}
		}
		watch.end() // the hold is over: released, or ended by a crash
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if err := p.restart(ctx, gen); err != nil {
				if ctx.Err() != nil {
					return nil // the run ended as the process came back
				}
				return err
			}
			continue
		case ctx.Err() != nil:
			if held != nil && !p.crashed() { // a crash ended the hold already
				release(ctx, rec, name, key, held, wl.TTL.D(), watch)
			}
			return nil
		case err != nil:
			if held != nil { // a holder the workload gives up on (ErrRecipe) is released, not left to its lease
				release(ctx, rec, name, key, held, wl.TTL.D(), watch)
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := sleep(ctx, think()); err != nil {
			return nil
		}
	}
	return nil
}

// holderLease returns the lease of holder h of recipe r (lock.Leaser), for
// faults aimed at it, or 0. For a holder without one it tells the Env why,
// before the acquire is recorded, so that such a fault — a trigger on this
// very acquire — is recorded as not applicable to the recipe.
func (w *world) holderLease(r lock.Recipe, client string, h lock.Held) int64 {
	ls, ok := h.(lock.Leaser)
	if !ok {
		w.env.NoLease(client, fmt.Sprintf("lock recipe %q: its holder (%T) has no Lease method (lock.Leaser), so no fault can revoke its lease", r.Name, h))
		return 0
	}
	id := int64(ls.Lease())
	if id == 0 {
		w.env.NoLease(client, fmt.Sprintf("lock recipe %q: its holder (%T) holds no lease (its Lease method, lock.Leaser, returned 0)", r.Name, h))
	}
	return id
}

// release unlocks h and records it, first ending the watch on its Done. A
// release made while Done is still open says so (checker.ReleaseDoneOpen):
// had the holder gone on past its lease, its recipe never told it. A
// holder that finds it had lost the lock (ErrNotHeld) holds it no more:
// that is recorded as done. The release goes on as the run ends, for at
// most grace more.
func release(ctx context.Context, rec *checker.Recorder, name, key string, h lock.Held, grace time.Duration, watch *lostWatch) {
	watch.end()
	var in checker.Input
	if !closed(h.Done()) {
		in.Value = checker.ReleaseDoneOpen
	}
	p := rec.Invoke(ctx, name, checker.KindRelease, key, in)
	uctx, cancel := finishing(ctx, 10*time.Second, grace)
	defer cancel()
	ctx = context.WithoutCancel(ctx)
	switch err := h.Unlock(uctx); {
	case err == nil:
		p.OK(ctx, checker.Output{})
	case errors.Is(err, lock.ErrNotHeld):
		p.OK(ctx, checker.Output{})
	default:
		p.Unknown(ctx, err)
	}
}

// lostWatch records the instant a holder's Done closes while it holds
// (checker.KindLost): the recipe telling it that it may have lost the
// lock, which the checkers' sentences set against when the server ended
// its lease.
type lostWatch struct {
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// watchLost watches the Done of h, the holder of client name on the lock
// key, whose process's client is cli, until its end. A Done closed by a
// crash (the client is closed first) records nothing: the crash, recorded
// by the Env, ended the hold.
func (w *world) watchLost(ctx context.Context, name, key string, h lock.Held, cli *clientv3.Client) *lostWatch {
	lw := &lostWatch{stop: make(chan struct{}), done: make(chan struct{})}
	rec := w.env.Recorder()
	go func() {
		defer close(lw.done)
		select {
		case <-h.Done():
		case <-lw.stop:
			if !closed(h.Done()) {
				return
			}
		}
		if cli.Ctx().Err() == nil {
			rec.Instant(ctx, name, checker.KindLost, key, checker.Input{}, checker.Output{})
		}
	}()
	return lw
}

// end stops the watch and waits for it. It may be called again, and on
// nil.
func (lw *lostWatch) end() {
	if lw == nil {
		return
	}
	lw.once.Do(func() { close(lw.stop) })
	<-lw.done
}
