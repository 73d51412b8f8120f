package checker

import (
	"errors"
	"fmt"
	"slices"
	"sync"
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
//	p := rec.Invoke("c1", checker.KindAcquire, "/jobs", checker.Input{})
//	tok, err := lock(ctx)
//	switch {
//	case err == nil:
//		p.OK(checker.Output{Token: tok})
//	case errors.Is(err, context.DeadlineExceeded):
//		p.Unknown(err) // the lock may have been taken anyway
//	default:
//		p.Fail(err)
//	}
type Recorder struct {
	clock *Clock

	mu     sync.Mutex // guards meta, ops, faults
	meta   Meta
	ops    []Operation // ops[i].ID == i; Outcome "" while pending
	faults []FaultEvent
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
	r  *Recorder
	id int
}

// Invoke records that client called an operation of kind on key with input,
// now. The returned Pending completes it.
func (r *Recorder) Invoke(client string, kind Kind, key string, in Input) *Pending {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now() // read under mu, so IDs follow call times
	id := len(r.ops)
	r.ops = append(r.ops, Operation{ID: id, Client: client, Kind: kind, Key: key, Input: in, Call: now})
	return &Pending{r: r, id: id}
}

// Instant records an operation that happened at one instant and succeeded:
// a watch event received, a leader observed, a crash. It returns its ID.
func (r *Recorder) Instant(client string, kind Kind, key string, in Input, out Output) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now() // read under mu, so IDs follow call times
	id := len(r.ops)
	r.ops = append(r.ops, Operation{ID: id, Client: client, Kind: kind, Key: key, Input: in, Output: out,
		Call: now, Return: now, Outcome: OutcomeOK})
	return id
}

// AddFault records an injected fault. The faults package calls it with
// events timed on the same clock.
func (r *Recorder) AddFault(ev FaultEvent) {
	ev.Targets = slices.Clone(ev.Targets)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, ev)
}

// ID is the operation's ID in the history.
func (p *Pending) ID() int { return p.id }

// OK records that the operation took effect and returned out.
func (p *Pending) OK(out Output) error {
	return p.complete(OutcomeOK, out, nil)
}

// Fail records that the operation definitely did not take effect.
func (p *Pending) Fail(err error) error {
	return p.complete(OutcomeFailed, Output{}, err)
}

// Unknown records that the client stopped waiting without learning whether
// the operation took effect (timeout, lost connection). It returns at
// Infinity; the time the client gave up is kept in GaveUp.
func (p *Pending) Unknown(err error) error {
	return p.complete(OutcomeUnknown, Output{}, err)
}

func (p *Pending) complete(o Outcome, out Output, err error) error {
	out.Values = slices.Clone(out.Values)
	out.Endpoints = slices.Clone(out.Endpoints)
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	now := p.r.clock.Now()
	op := &p.r.ops[p.id]
	if op.Outcome != "" {
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
		Ops:     make([]Operation, len(r.ops)),
		Faults:  make([]FaultEvent, len(r.faults)),
		End:     now,
	}
	for i, op := range r.ops {
		op.Run = r.meta.RunID // outputs are never changed once recorded, so sharing them is safe
		if op.Outcome == "" {
			op.Outcome, op.Return, op.GaveUp = OutcomeUnknown, Infinity, max(now, op.Call)
			op.Error = pendingError
		}
		h.Ops[i] = op
	}
	for i, f := range r.faults {
		f.Targets = slices.Clone(f.Targets)
		h.Faults[i] = f
	}
	return h
}
