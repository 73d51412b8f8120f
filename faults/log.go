package faults

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/checker"
)

// Log is an Env's record of every injection, in the order they fired. An
// event is added when its fault is injected and closed when it is healed;
// the run's recorder hears of it both times, with the same ID, so a run
// that stops mid-fault records the fault as still in force. The zero Log
// is empty and ready.
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

// add records an event that is already over and passes it to the
// recorder.
func (l *Log) add(e *Env, ev checker.FaultEvent) {
	l.begin(e, ev)
}

// begin records an event, passes it to the recorder and returns its
// index. Its ID is its index plus one.
func (l *Log) begin(e *Env, ev checker.FaultEvent) int {
	l.mu.Lock()
	ev.ID = len(l.events) + 1
	l.events = append(l.events, ev)
	l.mu.Unlock()
	ev.Targets = slices.Clone(ev.Targets)
	e.rec.AddFault(ev)
	return ev.ID - 1
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
	e.rec.AddFault(done)
}
