package checker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// ErrCompleted is returned when an operation is completed a second time; the
// first completion stands.
var ErrCompleted = errors.New("checker: operation already completed")

// pendingError is the Error of an operation still pending when a history
// snapshot was taken.
const pendingError = "pending when the history was taken"

// Recorder records the operations of a run, and the faults injected into it,
// on the run's Clock. It is safe for concurrent use by any number of clients.
//
//	p := rec.Invoke(ctx, "c1", checker.KindAcquire, "/jobs", checker.Input{})
//	tok, err := lock(ctx)
//	switch {
//	case err == nil:
//		p.OK(ctx, checker.Output{Token: tok})
//	case errors.Is(err, context.DeadlineExceeded):
//		p.Unknown(ctx, err) // the lock may have been taken anyway
//	default:
//		p.Fail(ctx, err)
//	}
//
// A workload records each operation once. Whoever else needs to know what
// the clients did — the fault scheduler firing a trigger when a client
// acquires a lock, a progress display — registers an Observer instead of
// asking the workload to report it a second time.
type Recorder struct {
	clock *Clock

	mu     sync.Mutex // guards meta, ops, calls, next, faults
	meta   Meta
	ops    opLog // the operations of History.Ops; Outcome "" while pending
	calls  opLog // the operations of History.Calls (CallKinds), likewise
	next   int   // the ID of the next operation, in either log
	faults []FaultEvent

	obsMu     sync.Mutex                 // serializes changes to observers
	observers atomic.Pointer[[]observer] // in the order they registered; replaced, never changed
	nextObs   int                        // guarded by obsMu
}

// observer is a registered Observer and the number that unregisters it.
type observer struct {
	id int
	o  Observer
}

// Observer hears of every operation a Recorder records: once when it is
// invoked (Outcome "") and once when it completes, and once for an
// instant operation. It runs in the recording goroutine after the
// operation is recorded, so what it does — inject a fault aimed at the
// client that just acquired a lock — happens before that client's next
// step. ctx is the recording client's; an observer that blocks returns
// when ctx ends. Observers may be called from many goroutines at once.
type Observer func(ctx context.Context, op Operation)

// Observe registers o for every operation recorded from now on and returns
// a function that unregisters it. Unregistering waits for no call in
// flight.
func (r *Recorder) Observe(o Observer) (stop func()) {
	r.obsMu.Lock()
	defer r.obsMu.Unlock()
	id := r.nextObs
	r.nextObs++
	var next []observer
	if cur := r.observers.Load(); cur != nil {
		next = slices.Clone(*cur)
	}
	next = append(next, observer{id: id, o: o})
	r.observers.Store(&next)
	return func() {
		r.obsMu.Lock()
		defer r.obsMu.Unlock()
		if cur := r.observers.Load(); cur != nil {
			next := slices.DeleteFunc(slices.Clone(*cur), func(x observer) bool { return x.id == id })
			r.observers.Store(&next)
		}
	}
}

// notify passes op to every observer, in the order they registered.
func (r *Recorder) notify(ctx context.Context, op Operation) {
	obs := r.observers.Load()
	if obs == nil {
		return
	}
	for _, x := range *obs {
		x.o(ctx, op)
	}
}

// NewRecorder returns a recorder on clock. Its RunID defaults to the clock's
// origin; change it with SetMeta.
func NewRecorder(clock *Clock) *Recorder {
	return &Recorder{
		clock: clock,
		meta:  Meta{RunID: clock.Origin().Format(time.RFC3339Nano)},
	}
}

// Clock returns the clock the recorder timestamps with.
func (r *Recorder) Clock() *Clock { return r.clock }

// SetMeta sets the run's metadata; an empty RunID keeps the current one.
func (r *Recorder) SetMeta(m Meta) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m.RunID == "" {
		m.RunID = r.meta.RunID
	}
	r.meta = m
}

// Pending is an operation that has been called and not yet completed.
// Complete it with exactly one of OK, Fail or Unknown; a second completion
// is ignored and returns an error wrapping ErrCompleted.
type Pending struct {
	r     *Recorder
	id    int
	log   *opLog // the log it is in: r.ops or r.calls
	index int    // its index in log
}

// Invoke records that client called an operation of kind on key with input,
// now, and tells the observers. The returned Pending completes it. ctx
// bounds what the observers do. An operation of CallKinds goes to
// History.Calls, every other to History.Ops.
func (r *Recorder) Invoke(ctx context.Context, client string, kind Kind, key string, in Input) *Pending {
	r.mu.Lock()
	now := r.clock.Now() // read under mu, so IDs follow call times
	op := Operation{ID: r.next, Client: client, Kind: kind, Key: key, Input: in, Call: now}
	r.next++
	log := r.logOf(kind)
	index := log.add(op)
	r.mu.Unlock()
	r.notify(ctx, op)
	return &Pending{r: r, id: op.ID, log: log, index: index}
}

// logOf returns the log an operation of kind goes to. Call with mu held.
func (r *Recorder) logOf(kind Kind) *opLog {
	if kind.IsCall() {
		return &r.calls
	}
	return &r.ops
}

// Instant records an operation that happened at one instant and succeeded
// — a watch event received, a leader observed, a crash — tells the
// observers, and returns its ID.
func (r *Recorder) Instant(ctx context.Context, client string, kind Kind, key string, in Input, out Output) int {
	out.Values = slices.Clone(out.Values)
	out.Endpoints = slices.Clone(out.Endpoints)
	r.mu.Lock()
	now := r.clock.Now() // read under mu, so IDs follow call times
	op := Operation{ID: r.next, Client: client, Kind: kind, Key: key, Input: in, Output: out,
		Call: now, Return: now, Outcome: OutcomeOK}
	r.next++
	r.logOf(kind).add(op)
	r.mu.Unlock()
	r.notify(ctx, op)
	return op.ID
}

// AddFault records a fault event. The faults package calls it with events
// timed on the same clock, once when a fault is injected and again, with
// the same ID, when it is healed: the later report replaces the earlier,
// so a run that stops mid-fault still shows the fault as in force.
func (r *Recorder) AddFault(ev FaultEvent) {
	ev.Targets = slices.Clone(ev.Targets)
	r.mu.Lock()
	defer r.mu.Unlock()
	if ev.ID != 0 {
		for i := range r.faults {
			if r.faults[i].ID == ev.ID {
				r.faults[i] = ev
				return
			}
		}
	}
	r.faults = append(r.faults, ev)
}

// ID is the operation's ID in the history.
func (p *Pending) ID() int { return p.id }

// OK records that the operation took effect and returned out, and tells
// the observers; ctx bounds what they do.
func (p *Pending) OK(ctx context.Context, out Output) error {
	return p.complete(ctx, OutcomeOK, out, nil)
}

// Fail records that the operation definitely did not take effect.
func (p *Pending) Fail(ctx context.Context, err error) error {
	return p.complete(ctx, OutcomeFailed, Output{}, err)
}

// Unknown records that the client stopped waiting without learning whether
// the operation took effect (timeout, lost connection). It returns at
// Infinity; the time the client gave up is kept in GaveUp.
func (p *Pending) Unknown(ctx context.Context, err error) error {
	return p.complete(ctx, OutcomeUnknown, Output{}, err)
}

func (p *Pending) complete(ctx context.Context, o Outcome, out Output, err error) error {
	out.Values = slices.Clone(out.Values)
	out.Endpoints = slices.Clone(out.Endpoints)
	p.r.mu.Lock()
	now := p.r.clock.Now()
	op := p.log.at(p.index)
	if op.Outcome != "" {
		p.r.mu.Unlock()
		return fmt.Errorf("%w: %s completed as %s, then as %s", ErrCompleted, op, op.Outcome, o)
	}
	op.Outcome = o
	op.Output = out
	if err != nil {
		op.Error = err.Error()
	}
	if o == OutcomeUnknown {
		op.Return, op.GaveUp = Infinity, max(now, op.Call)
	} else {
		op.Return = max(now, op.Call)
	}
	done := *op
	done.Run = p.r.meta.RunID
	p.r.mu.Unlock()
	p.r.notify(ctx, done)
	return nil
}

// History returns a snapshot of everything recorded so far. Operations still
// pending appear with an unknown outcome, giving up now.
func (r *Recorder) History() History {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	h := History{
		Version: HistoryVersion,
		Meta:    r.meta,
		Ops:     r.snapshot(&r.ops, now),
		Calls:   r.snapshot(&r.calls, now),
		Faults:  make([]FaultEvent, len(r.faults)),
		End:     now,
	}
	for i, f := range r.faults {
		f.Targets = slices.Clone(f.Targets)
		h.Faults[i] = f
	}
	return h
}

// snapshot returns the operations of log as they stand at now: those still
// pending with an unknown outcome, giving up now; nil for an empty log.
// Call with mu held.
func (r *Recorder) snapshot(log *opLog, now time.Duration) []Operation {
	if log.len() == 0 && log == &r.calls {
		return nil
	}
	out := make([]Operation, log.len())
	for i := range log.len() {
		op := *log.at(i)
		op.Run = r.meta.RunID // outputs are never changed once recorded, so sharing them is safe
		if op.Outcome == "" {
			op.Outcome, op.Return, op.GaveUp = OutcomeUnknown, Infinity, max(now, op.Call)
			op.Error = pendingError
		}
		out[i] = op
	}
	return out
}
