package checker

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// JepsenKey is the key ReadJepsenLog puts every operation on.
const JepsenKey = "jepsen"

// jepsenExample is an event line, for errors.
const jepsenExample = "INFO  jepsen.util - 3 :invoke :write 4"

// jepsenTick is how far apart ReadJepsenLog puts consecutive lines in time.
// Jepsen's log orders events but does not time them.
const jepsenTick = time.Millisecond

// ReadJepsenLog reads a Jepsen single-register history in the log format
//
//	INFO  jepsen.util - <process> :invoke|:ok|:fail|:info :read|:write|:cas <value>
//
// into a History of read, write and cas operations on key JepsenKey, which
// RegisterLinearizable judges. Line n happens at n milliseconds. Process p
// becomes client "p<p>". A read of nil is a read of a missing key; a cas's
// value is "[expect new]". An :ok returns; a :fail of a cas is a failed
// comparison (outcome ok, Output.Succeeded false); a :fail of a read that
// timed out, an :info, and an invocation that never returns have unknown
// outcomes; any other :fail did not take effect. Lines that are not
// jepsen.util events are skipped, but input with no event line at all (an
// empty or blank file, a file of another format) is an error.
func ReadJepsenLog(r io.Reader) (History, error) {
	var h History
	pending := map[string]int{} // process → index in h.Ops
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line, blank, events := 0, 0, 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			blank++
			continue
		}
		if len(f) < 6 || f[1] != "jepsen.util" || f[2] != "-" {
			continue
		}
		events++
		proc, typ, fn := f[3], f[4], f[5]
		value := strings.Join(f[6:], " ")
		now := time.Duration(line) * jepsenTick
		bad := func(format string, args ...any) error {
			return fmt.Errorf("checker: jepsen log line %d: %s", line, fmt.Sprintf(format, args...))
		}
		var kind Kind
		switch fn {
		case ":read":
			kind = KindRead
		case ":write":
			kind = KindWrite
		case ":cas":
			kind = KindCAS
		default:
			return History{}, bad("unknown function %q", fn)
		}
		if typ == ":invoke" {
			if _, busy := pending[proc]; busy {
				return History{}, bad("process %s invokes while its previous operation is pending", proc)
			}
			op := Operation{ID: len(h.Ops), Client: "p" + proc, Kind: kind, Key: JepsenKey, Call: now}
			switch kind {
			case KindWrite:
				op.Input.Value = value
			case KindCAS:
				expect, swap, ok := jepsenPair(value)
				if !ok {
					return History{}, bad("cas value %q is not [expect new]", value)
				}
				op.Input.Expect, op.Input.Value = expect, swap
			}
			pending[proc] = len(h.Ops)
			h.Ops = append(h.Ops, op)
			continue
		}
		i, ok := pending[proc]
		if !ok {
			return History{}, bad("process %s completes an operation it never invoked", proc)
		}
		op := &h.Ops[i]
		if op.Kind != kind {
			return History{}, bad("process %s invoked %s but completes %s", proc, op.Kind, kind)
		}
		delete(pending, proc)
		switch {
		case typ == ":ok":
			op.Outcome, op.Return = OutcomeOK, now
			switch kind {
			case KindRead:
				if value == "nil" {
					op.Output.Missing = true
				} else {
					op.Output.Value = value
				}
			case KindCAS:
				op.Output.Succeeded = true
			}
		case typ == ":fail" && kind == KindCAS:
			op.Outcome, op.Return = OutcomeOK, now // the comparison failed
		case typ == ":info", typ == ":fail" && value == ":timed-out":
			op.Outcome, op.Return, op.GaveUp, op.Error = OutcomeUnknown, Infinity, now, strings.TrimPrefix(value, ":")
		case typ == ":fail":
			op.Outcome, op.Return, op.Error = OutcomeFailed, now, strings.TrimPrefix(value, ":")
		default:
			return History{}, bad("unknown event type %q", typ)
		}
	}
	if err := sc.Err(); err != nil {
		return History{}, fmt.Errorf("checker: jepsen log: %w", err)
	}
	switch {
	case line == blank:
		return History{}, fmt.Errorf("checker: jepsen log: empty input (want jepsen.util event lines like %q)", jepsenExample)
	case events == 0:
		return History{}, fmt.Errorf("checker: jepsen log: none of its %s is a jepsen.util event (want lines like %q)",
			plural(line, "line"), jepsenExample)
	}
	end := time.Duration(line) * jepsenTick
	for _, i := range pending {
		op := &h.Ops[i]
		op.Outcome, op.Return, op.GaveUp, op.Error = OutcomeUnknown, Infinity, end, "never returned"
	}
	h.Version, h.End = HistoryVersion, end
	return h, nil
}

// jepsenPair splits "[a b]".
func jepsenPair(s string) (a, b string, ok bool) {
	s, ok1 := strings.CutPrefix(s, "[")
	s, ok2 := strings.CutSuffix(s, "]")
	f := strings.Fields(s)
	if !ok1 || !ok2 || len(f) != 2 {
		return "", "", false
	}
	return f[0], f[1], true
}
