package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/etcdsim/etcdsim/checker"
)

// lastEvent is the last operation a run recorded, in a line, for the
// watchdog of its bubble to say how far a run that hangs or spins got
// (bubble.Options.LastEvent).
type lastEvent struct {
	line atomic.Pointer[string]
}

// observe is a checker.Observer that keeps op as the last event.
func (l *lastEvent) observe(_ context.Context, op checker.Operation) {
	what := strings.Join(slices.DeleteFunc([]string{op.Client, string(op.Kind), op.Key}, func(s string) bool { return s == "" }), " ")
	var line string
	switch {
	case op.Outcome == "":
		line = fmt.Sprintf("%s, called at %v", what, op.Call.Round(time.Millisecond))
	case op.Error != "":
		line = fmt.Sprintf("%s, returned %s (%s) at %v", what, op.Outcome, op.Error, op.Return.Round(time.Millisecond))
	default:
		line = fmt.Sprintf("%s, returned %s at %v", what, op.Outcome, op.Return.Round(time.Millisecond))
	}
	l.line.Store(&line)
}

// String returns the last event, "" before the first.
func (l *lastEvent) String() string {
	if p := l.line.Load(); p != nil {
		return *p
	}
	return ""
}
