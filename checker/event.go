package checker

import "time"

// FaultEvent is one injected fault as the run saw it: what it was, whom it hit
// (resolved when it fired), and when it started and was healed on the run's
// Clock. The faults package records one per injection; reports draw them over
// the operations of a history.
type FaultEvent struct {
	// ID numbers the event within the log that made it, from 1. A sink
	// hears of an event twice — when its fault is injected and when it is
	// healed — with the same ID, and keeps the later report. 0 means the
	// event has no ID; such events are always kept as new ones.
	ID int `json:"id,omitempty"`
	// Name names the fault as a person reads it, such as "kill(leader)" or
	// "partition(minority)".
	Name string `json:"name"`
	// Action is the fault's action alone, such as "kill" or "crash", for
	// checkers that treat some actions apart; "" if not recorded.
	Action string `json:"action,omitempty"`
	// Targets are the member and client names the fault was aimed at,
	// resolved when it fired.
	Targets []string `json:"targets,omitempty"`
	// Pinned is, for a fault aimed at "pinned <client>", that client: the
	// member among Targets is the one its lease keepalive (or watch)
	// stream was on when the fault fired. "" otherwise.
	Pinned string `json:"pinned,omitempty"`
	// Start is when the fault was injected.
	Start time.Duration `json:"start"`
	// End is when it was healed; Healed is false while it is still active.
	End    time.Duration `json:"end"`
	Healed bool          `json:"healed"`
	// Detail is free text: parameters (durations, delays) or why a heal failed.
	Detail string `json:"detail,omitempty"`
	// Err is set when the injection or its heal failed.
	Err string `json:"error,omitempty"`
	// NotApplicable, when set, says why the fault did not apply to the
	// run's recipe: it was aimed at something the recipe does not offer,
	// such as the lease of a lock holder that has none. Such a fault did
	// nothing (End is Start, Healed is true) and is no error: the run is
	// judged without it.
	NotApplicable string `json:"not_applicable,omitempty"`
}

// InForce reports whether the fault may still be in force when the run
// ended: it was injected and no heal succeeded. An injection that failed
// before it took effect (Err set, not healed, End equal to Start) was never
// in force, and neither was a fault that did not apply (NotApplicable).
func (ev FaultEvent) InForce() bool {
	return !ev.Healed && ev.NotApplicable == "" && (ev.Err == "" || ev.End != ev.Start)
}
