package faults

import (
	"fmt"
	"strings"
	"time"
)

// A step's text form is written by Step.String and read by ParseStep, and
// nowhere else: campaign files, shrink reports and validation errors all
// show a step this way.
//
//	at <time>[ for <duration>]: <fault>
//
// "at 1s for 2s: kill(leader)", "at 4s: compact". The fault is in the form
// Parse reads; an instant fault has no duration.

// stepForm is how a step is written, shown when it is written wrong.
const stepForm = `"at <time>[ for <duration>]: <fault>", e.g. "at 1s for 2s: kill(leader)" or "at 4s: compact"`

// String writes s in the form ParseStep reads: "at 1s for 2s: kill(leader)",
// or "at 4s: compact" for a step without a duration.
func (s Step) String() string {
	if s.For == 0 {
		return fmt.Sprintf("at %v: %v", s.At, s.Fault)
	}
	return fmt.Sprintf("at %v for %v: %v", s.At, s.For, s.Fault)
}

// ParseStep reads a step in the form Step.String writes:
//
//	at <time>[ for <duration>]: <fault>
//
// The times are written as time.ParseDuration reads them, the fault as
// Parse reads it. The time may not be negative; an instant fault (compact,
// ring, …) takes no duration, and every other fault a positive one. As with
// Parse, whether the fault suits a cluster is for Validate to say.
func ParseStep(text string) (Step, error) {
	st, err := parseStep(text)
	if err != nil {
		return Step{}, fmt.Errorf("faults: parse step %q: %w", text, err)
	}
	return st, nil
}

func parseStep(text string) (Step, error) {
	// The head holds no ':', so the first one ends it; a name in the fault
	// may hold one ("lock-holder /locks/a:b").
	head, rest, ok := strings.Cut(text, ":")
	if !ok {
		return Step{}, fmt.Errorf("no \":\" before the fault; write %s", stepForm)
	}
	fs := strings.Fields(head)
	if !(len(fs) == 2 && fs[0] == "at" || len(fs) == 4 && fs[0] == "at" && fs[2] == "for") {
		return Step{}, fmt.Errorf("%q before the fault: want \"at <time>\" or \"at <time> for <duration>\"; write %s",
			strings.TrimSpace(head), stepForm)
	}
	at, err := parseDuration("time", fs[1])
	if err != nil {
		return Step{}, err
	}
	if at < 0 {
		return Step{}, fmt.Errorf("time %v is negative: a step fires at or after the start of the run", at)
	}
	var d time.Duration
	if len(fs) == 4 {
		if d, err = parseDuration("duration", fs[3]); err != nil {
			return Step{}, err
		}
	}
	f, err := parseFault(rest)
	if err != nil {
		return Step{}, err
	}
	if err := checkFor(f, d); err != nil {
		return Step{}, fmt.Errorf("%w; write %s", err, stepForm)
	}
	return At(at, d, f), nil
}
