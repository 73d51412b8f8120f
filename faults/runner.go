package faults

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/checker"
)

// runner is the machinery a schedule runs on: it fires faults, keeps the
// heals of active ones with the time each is due, and at the end heals
// whatever is still active and waits for the cluster to be healthy.
type runner struct {
	env  *Env
	ctx  context.Context // the run's context, for faults fired by triggers
	wake chan struct{}   // a trigger added an active fault

	mu     sync.Mutex // guards active, closed, errs
	active []*activeFault
	closed bool
	errs   []error
	firing sync.WaitGroup // triggers injecting now
}

// activeFault is an injected fault waiting for its heal.
type activeFault struct {
	heal Heal
	due  time.Duration // on the run's clock
}

func newRunner(ctx context.Context, env *Env) *runner {
	return &runner{env: env, ctx: ctx, wake: make(chan struct{}, 1)}
}

// fire injects f and, unless it is instant, keeps its heal due d after
// the injection began: an injection that takes long under load (a member
// slow to die) does not push its heal past the next step's time. A fault
// that fails to inject is recorded and the schedule goes on; one that did
// not apply to the run's recipe (ErrNotApplicable) is recorded and is no
// error of the schedule.
func (r *runner) fire(ctx context.Context, f Fault, rng *rand.Rand, note string, d time.Duration) {
	start := r.env.clock.Now()
	heal, err := r.env.inject(ctx, f, rng, note)
	r.mu.Lock()
	defer r.mu.Unlock()
	if errors.Is(err, ErrNotApplicable) {
		return
	}
	if err != nil {
		r.errs = append(r.errs, &notedError{note: note, err: err})
		return
	}
	if !f.instant {
		r.active = append(r.active, &activeFault{heal: heal, due: start + d})
	}
}

// healDue heals every active fault whose time has come, earliest first.
func (r *runner) healDue() {
	now := r.env.clock.Now()
	r.mu.Lock()
	var due []*activeFault
	r.active = slices.DeleteFunc(r.active, func(a *activeFault) bool {
		if a.due <= now {
			due = append(due, a)
			return true
		}
		return false
	})
	r.mu.Unlock()
	slices.SortStableFunc(due, func(a, b *activeFault) int { return int(a.due - b.due) })
	for _, a := range due {
		r.heal(a)
	}
}

// healAll heals every active fault, the last injected first.
func (r *runner) healAll() {
	r.mu.Lock()
	all := r.active
	r.active = nil
	r.mu.Unlock()
	for i := len(all) - 1; i >= 0; i-- {
		r.heal(all[i])
	}
}

func (r *runner) heal(a *activeFault) {
	if err := a.heal(r.ctx); err != nil {
		r.mu.Lock()
		r.errs = append(r.errs, err)
		r.mu.Unlock()
	}
}

// nextDue returns when the earliest active fault is due.
func (r *runner) nextDue() (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.active) == 0 {
		return 0, false
	}
	next := r.active[0].due
	for _, a := range r.active[1:] {
		next = min(next, a.due)
	}
	return next, true
}

// idle reports whether no fault is active.
func (r *runner) idle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.active) == 0
}

// sleep waits until the run's clock reads until (if ok), a trigger fires,
// or ctx ends. It is the only place a schedule waits for time to pass.
func (r *runner) sleep(ctx context.Context, until time.Duration, ok bool) error {
	var tick <-chan time.Time
	if ok {
		t := time.NewTimer(until - r.env.clock.Now())
		defer t.Stop()
		tick = t.C
	}
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-tick:
	case <-r.wake:
	}
	return nil
}

// arm makes the Env's observer fire triggers for this run.
func (r *runner) arm(triggers []Trigger, seeds []uint64) []*armedTrigger {
	var armed []*armedTrigger
	for i, t := range triggers {
		armed = append(armed, &armedTrigger{trigger: t, index: i, rng: stepRand(seeds[i]), run: r})
	}
	r.env.mu.Lock()
	r.env.armed = append(r.env.armed, armed...)
	r.env.mu.Unlock()
	return armed
}

// close ends the run, whatever state it is in: it disarms the triggers,
// waits for the ones injecting, heals every active fault, and — unless the
// caller's context ended — waits until the cluster is healthy. It returns
// every error of the run.
func (r *runner) close() error {
	r.env.mu.Lock()
	r.env.armed = slices.DeleteFunc(r.env.armed, func(t *armedTrigger) bool { return t.run == r })
	r.env.mu.Unlock()
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.firing.Wait()
	r.healAll()
	if r.ctx.Err() != nil && !errors.Is(context.Cause(r.ctx), errStopped) {
		// The caller's context ended: it is leaving, and will close the
		// cluster rather than wait for it to recover.
		return errors.Join(r.errs...)
	}
	if err := r.env.settle(r.ctx); err != nil {
		r.errs = append(r.errs, err)
	}
	return errors.Join(r.errs...)
}

// settle waits until the cluster is healthy again: every member up (one
// that is down is restarted), a leader agreed, and a linearizable read
// through every member.
func (e *Env) settle(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.timeout)
	defer cancel()
	var errs []error
	for _, m := range e.c.Members() {
		if !m.Running() {
			if err := m.Restart(ctx); err != nil {
				errs = append(errs, fmt.Errorf("restarting %s: %w", m.Name(), err))
			}
		}
	}
	if err := e.c.WaitHealthy(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("faults: the cluster is not healthy after the schedule: %w", err)
	}
	return nil
}

// armedTrigger is a trigger of a running schedule.
type armedTrigger struct {
	trigger Trigger
	index   int
	rng     *rand.Rand
	run     *runner
	fired   bool // guarded by Env.mu
}

// fire injects the trigger's fault on behalf of the Env's observer and
// hands its heal to the run. The recording client waits for the injection,
// so the fault lands before its next step, unless ctx — the client's —
// ends first; the injection then finishes on the run's context all the
// same, and the run waits for it before it closes. A fault that fails to
// inject is an event in the log and an error the schedule returns.
func (t *armedTrigger) fire(ctx context.Context, op checker.Operation) {
	r := t.run
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.firing.Add(1)
	r.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer r.firing.Done()
		defer close(done)
		r.fire(r.ctx, t.trigger.Fault, t.rng, fmt.Sprintf("trigger %d on %v", t.index, op), t.trigger.For)
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// notedError is the error of a fault a schedule fired, named by the step
// or trigger that fired it, as the event's detail names it: "faults: step
// 3: freeze(m1) on [m1]: …".
type notedError struct {
	note string
	err  error
}

func (e *notedError) Error() string {
	return "faults: " + e.note + ": " + strings.TrimPrefix(e.err.Error(), "faults: ")
}

func (e *notedError) Unwrap() error { return e.err }
