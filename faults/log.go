package faults

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/checker"
)

// Sink receives fault events, such as the history recorder of a run.
type Sink interface {
	AddFault(ev checker.FaultEvent)
}

// Log is an Env's record of every injection, in the order they fired. An
// event is added when its fault is injected and closed when it is healed;
// the Env's Sink receives it then. The zero Log is empty and ready.
type Log struct {
	mu     sync.Mutex // guards events
	events []checker.FaultEvent
}

// Events returns a copy of every event so far, active ones included
// (Healed false).
func (l *Log) Events() []checker.FaultEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]checker.FaultEvent, len(l.events))
	for i, ev := range l.events {
		ev.Targets = slices.Clone(ev.Targets)
		out[i] = ev
	}
	return out
}

// AddFault adds a finished event, so a Log can serve as another Env's Sink.
func (l *Log) AddFault(ev checker.FaultEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

// add records an event that is already over and passes it to the sink.
func (l *Log) add(e *Env, ev checker.FaultEvent) {
	l.AddFault(ev)
	if e.sink != nil {
		e.sink.AddFault(ev)
	}
}

// begin records an active event and returns its index.
func (l *Log) begin(ev checker.FaultEvent) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
	return len(l.events) - 1
}

func (l *Log) name(id int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.events[id].Name
}

// end closes event id at time at and passes it to the sink. injectErr is
// why the injection failed, if it did; healErr why the heal did.
func (l *Log) end(e *Env, id int, at time.Duration, detail string, injectErr, healErr error) {
	l.mu.Lock()
	ev := &l.events[id]
	ev.End = at
	ev.Healed = healErr == nil
	ev.Detail = joinDetail(ev.Detail, detail)
	if err := errors.Join(injectErr, healErr); err != nil {
		ev.Err = err.Error()
	}
	done := *ev
	done.Targets = slices.Clone(done.Targets)
	l.mu.Unlock()
	if e.sink != nil {
		e.sink.AddFault(done)
	}
}
