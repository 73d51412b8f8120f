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

// lastEvent is the last operation a run recorded, said in a line, for the
// watchdog of its bubble to say how far a run that hangs or spins got
// (bubble.Options.LastEvent).
//
// It keeps the operation's fields and writes the line only when asked:
// a run records hundreds of operations and its watchdog asks, if ever,
// once, so formatting each as it comes would cost every run CPU time for a
// line almost none reads.
type lastEvent struct {
	op atomic.Pointer[eventOp]
}

// eventOp is the part of an operation the line says.
type eventOp struct {
	client, kind, key string
	outcome, err      string
	call, ret         time.Duration
}

// observe is a checker.Observer that keeps op as the last event.
func (l *lastEvent) observe(_ context.Context, op checker.Operation) {
	l.op.Store(&eventOp{client: op.Client, kind: string(op.Kind), key: op.Key,
		outcome: string(op.Outcome), err: op.Error, call: op.Call, ret: op.Return})
}

// String returns the last event, "" before the first.
func (l *lastEvent) String() string {
	e := l.op.Load()
	if e == nil {
		return ""
	}
	what := strings.Join(slices.DeleteFunc([]string{e.client, e.kind, e.key}, func(s string) bool { return s == "" }), " ")
	switch {
	case e.outcome == "":
		return fmt.Sprintf("%s, called at %v", what, e.call.Round(time.Millisecond))
	case e.err != "":
		return fmt.Sprintf("%s, returned %s (%s) at %v", what, e.outcome, e.err, e.ret.Round(time.Millisecond))
	default:
		return fmt.Sprintf("%s, returned %s at %v", what, e.outcome, e.ret.Round(time.Millisecond))
	}
}
