package checker

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Reported by MemberResources.
const (
	// ViolationKeepAliveLeak: after clients went away, a member still
	// ran more keep-alive loops than it had streams open, past the slack.
	ViolationKeepAliveLeak ViolationKind = "keepalive-leak"
)

// MemberResourcesOptions configures MemberResources. The zero value
// allows 2 loops beyond the open streams, once 1 s has passed since the
// last fault.
type MemberResourcesOptions struct {
	// Slack is how many keep-alive loops a member may run beyond its open
	// streams: a loop ends a moment after its stream. 0 means 2.
	Slack int
	// Settle is how long after the last fault's end a sample is judged.
	// 0 means 1 s.
	Settle time.Duration
	// MaxViolations caps the violations kept: 0 means 20, negative keeps
	// all.
	MaxViolations int
}

// resourceSample is one KindMemberSample operation, read.
type resourceSample struct {
	op                  *Operation
	streams, loops      int
	heap                int64
	hasLoops, hasStream bool
}

// MemberResources checks that the members do not keep serving lease
// keep-alive streams that are gone: that a member's keep-alive loops,
// after the clients that opened them were reset or went away, number no
// more than its open streams plus Slack. A loop that outlives its stream
// holds a goroutine, its stack and the stream's buffers for as long as it
// waits, and many client resets add up (etcd #16942).
//
// It reads KindMemberSample samples, and History.Faults: a sample is
// judged when no fault is in force at it and Settle has passed since the
// last one ended; each member is reported once, at the judged sample with
// the most loops beyond its streams. The metrics say how the figures grew
// from the first sample to the last: resets (the reset faults and client
// restarts), and per member the loops and streams at the last sample;
// heap-first and heap-last, the process's heap.
//
// Invalid: whatever History.Validate rejects, and a sample whose figure
// is not "name=value" with a number. With no sample that can be judged,
// or none that counts loops, the verdict is unknown.
func MemberResources(h History, opts MemberResourcesOptions) Result {
	rep := newReport(CheckerMemberResources, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	slack := cmp.Or(opts.Slack, 2)
	settle := cmp.Or(opts.Settle, time.Second)

	var samples []resourceSample
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != KindMemberSample {
			continue
		}
		s, err := readSample(op)
		if err != nil {
			return rep.invalid(err)
		}
		samples = append(samples, s)
	}
	resets := 0
	for _, f := range h.Faults {
		if f.Action == "reset" || f.Action == "crash" {
			resets += max(len(f.Targets), 1)
		}
	}

	worst := map[string]resourceSample{}
	last := map[string]resourceSample{}
	judged := 0
	for _, s := range samples {
		last[s.op.Client] = s
		if !s.hasLoops || !s.hasStream || !settled(&h, s.op.Call, settle) {
			continue
		}
		judged++
		if over := s.loops - s.streams; over > slack {
			if w, ok := worst[s.op.Client]; !ok || over > w.loops-w.streams {
				worst[s.op.Client] = s
			}
		}
	}
	for _, m := range slices.Sorted(maps.Keys(worst)) {
		s := worst[m]
		rep.violation(ViolationKeepAliveLeak, []*Operation{s.op},
			"member %s ran %s at %s with %s open, %d beyond its streams (slack %d), after %s: "+
				"each loop left is a goroutine still waiting on a stream its client has gone from",
			m, plural(s.loops, "keep-alive loop"), fmtTime(s.op.Call), plural(s.streams, "keep-alive stream"), s.loops-s.streams, slack,
			resetsPhrase(resets))
	}

	rep.res.Metrics["samples"] = float64(len(samples))
	rep.res.Metrics["resets"] = float64(resets)
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(last)) {
		s := last[m]
		rep.res.Metrics["loops-"+m] = float64(s.loops)
		rep.res.Metrics["streams-"+m] = float64(s.streams)
		parts = append(parts, fmt.Sprintf("%s %d/%d", m, s.loops, s.streams))
	}
	if len(samples) > 0 && samples[0].heap > 0 && samples[len(samples)-1].heap > 0 {
		rep.res.Metrics["heap-first"] = float64(samples[0].heap)
		rep.res.Metrics["heap-last"] = float64(samples[len(samples)-1].heap)
	}
	summary := fmt.Sprintf("%s (%d judged) over %s", plural(len(samples), "sample"), judged, resetsPhrase(resets))
	if len(parts) > 0 {
		summary += "; keep-alive loops/streams at the last sample: " + strings.Join(parts, ", ")
	}
	if hf, hl := rep.res.Metrics["heap-first"], rep.res.Metrics["heap-last"]; hf > 0 {
		summary += fmt.Sprintf("; the process's heap %.1f MiB → %.1f MiB", hf/(1<<20), hl/(1<<20))
	}
	undecided := ""
	switch {
	case len(samples) == 0:
		undecided = "no member's resources were sampled"
	case judged == 0:
		undecided = "no sample counts loops and streams at a time with no fault in force and " + settle.String() + " after the last"
	}
	return rep.done(summary, undecided)
}

// resetsPhrase says how many client resets and restarts there were.
func resetsPhrase(n int) string {
	if n == 1 {
		return "1 client reset or restart"
	}
	return fmt.Sprintf("%d client resets or restarts", n)
}

// readSample reads the figures of a KindMemberSample operation.
func readSample(op *Operation) (resourceSample, error) {
	s := resourceSample{op: op}
	for _, f := range op.Output.Values {
		name, value, ok := strings.Cut(f, "=")
		v, err := strconv.ParseInt(value, 10, 64)
		if !ok || err != nil || v < 0 {
			return s, invalidOp(op, "figure %q is not name=value with a count (want streams=, loops= or heap=)", f)
		}
		switch name {
		case "streams":
			s.streams, s.hasStream = int(v), true
		case "loops":
			s.loops, s.hasLoops = int(v), true
		case "heap":
			s.heap = v
		}
	}
	return s, nil
}

// settled reports whether no fault is in force at t and every fault before
// it ended at least settle earlier.
func settled(h *History, t, settle time.Duration) bool {
	for _, f := range h.Faults {
		if f.Start > t {
			continue
		}
		end := f.End
		if !f.Healed {
			end = Infinity
		}
		if end > t-settle {
			return false
		}
	}
	return true
}

// MemberResourceFigures returns a sample's Output.Values for
// KindMemberSample: heap < 0 leaves the heap out.
func MemberResourceFigures(streams, loops int, heap int64) []string {
	out := []string{"streams=" + strconv.Itoa(streams), "loops=" + strconv.Itoa(loops)}
	if heap >= 0 {
		out = append(out, "heap="+strconv.FormatInt(heap, 10))
	}
	return out
}
