package checker

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"time"
)

// defaultWatchBound is how long a committed change may take to reach a
// watcher when WatchOptions leaves Bound zero.
const defaultWatchBound = 5 * time.Second

// WatchOptions configures WatchGuarantees. The zero value allows 5 s for
// delivery.
type WatchOptions struct {
	// Bound is how long after a change returned a watch that stays open
	// must have delivered it. 0 means 5 s.
	Bound time.Duration
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// WatchGuarantees checks what etcd promises watchers, per watcher (Client)
// and watched prefix (Key).
//
// It reads:
//   - write, delete, and cas with Output.Succeeded, with outcome ok and
//     Output.Revision > 0: the committed changes, on their Key.
//   - watch: one stream, from its call to its return (the channel closed),
//     starting at Input.Revision (0: from now); Output.CompactRevision > 0
//     means it was cancelled with ErrCompacted.
//   - watch-event (Output.Key, Output.Revision): an event the stream
//     delivered; it belongs to the latest watch the watcher called on that
//     prefix before it.
//   - list (Output.Revision, the revision it read at): a re-list.
//
// Per watcher and prefix: revisions never go backwards, and no event (key
// and revision) is delivered twice. Per stream: every committed change under
// the prefix from the stream's start revision (or, watching from now, from
// its first event) on is delivered, if its revision is below one the stream
// delivered or the stream stayed open for the bound after the change
// returned. A stream that resumes from a later revision than the watcher had
// seen (by events or a list) must not skip committed changes. After
// ErrCompacted the watcher must list before it watches again.
//
// Invalid: a watch-event without a revision, an operation without a prefix,
// and whatever History.Validate rejects. With no events the verdict is
// unknown.
func WatchGuarantees(h History, opts WatchOptions) Result {
	rep := newReport(CheckerWatchGuarantees, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	bound := opts.Bound
	if bound <= 0 {
		bound = defaultWatchBound
	}
	var commits []int // committed changes, by revision
	for i := range h.Ops {
		op := &h.Ops[i]
		switch op.Kind {
		case KindWatchEvent:
			if op.Output.Revision <= 0 {
				return rep.invalid(invalidOp(op, "watch-event without a revision"))
			}
			fallthrough
		case KindWatch, KindList:
			if op.Key == "" {
				return rep.invalid(invalidOp(op, "%s without a prefix", op.Kind))
			}
		case KindWrite, KindDelete, KindCAS:
			if op.Outcome == OutcomeOK && op.Output.Revision > 0 && (op.Kind != KindCAS || op.Output.Succeeded) {
				commits = append(commits, i)
			}
		}
	}
	slices.SortFunc(commits, func(a, b int) int {
		return cmp.Or(cmp.Compare(h.Ops[a].Output.Revision, h.Ops[b].Output.Revision), cmp.Compare(a, b))
	})
	w := watchRun{h: &h, rep: rep, bound: bound, commits: commits, end: h.lastTime()}

	type stream struct{ client, prefix string }
	var streams []stream
	ops := map[stream][]int{}
	for i := range h.Ops {
		op := &h.Ops[i]
		switch op.Kind {
		case KindWatch, KindWatchEvent, KindList:
			s := stream{op.Client, op.Key}
			if _, ok := ops[s]; !ok {
				streams = append(streams, s)
			}
			ops[s] = append(ops[s], i)
		}
	}
	slices.SortFunc(streams, func(a, b stream) int {
		return cmp.Or(cmp.Compare(a.client, b.client), cmp.Compare(a.prefix, b.prefix))
	})
	for _, s := range streams {
		idx := ops[s]
		sortByCall(&h, idx)
		w.watcher(s.client, s.prefix, idx)
	}
	m := rep.res.Metrics
	m["watchers"] = float64(len(streams))
	m["commits"] = float64(len(commits))
	m["events"] = float64(w.events)
	m["streams"] = float64(w.streams)
	m["compactions"] = float64(w.compactions)
	m["relists"] = float64(w.relists)
	m["duplicates"] = float64(w.duplicates)
	m["missed"] = float64(w.missed)
	summary := sprintf("%s delivered to %s over %s; %s", plural(w.events, "event"),
		plural(len(streams), "watcher"), plural(w.streams, "stream"), plural(len(commits), "committed change"))
	undecided := ""
	if w.events == 0 {
		undecided = "no watch events"
	}
	return rep.done(summary, undecided)
}

type watchRun struct {
	h       *History
	rep     *report
	bound   time.Duration
	commits []int // by revision
	end     time.Duration

	events, streams, compactions, relists, duplicates, missed int
}

// eventID is what identifies a delivered event.
type eventID struct {
	rev int64
	key string
}

// session is one watch stream being replayed.
type session struct {
	watch     *Operation // nil for events delivered before any watch
	from      int64      // first revision it must deliver; 0 until known
	last      int64      // last revision it delivered
	compacted bool
}

func (w *watchRun) watcher(client, prefix string, idx []int) {
	h := w.h
	seen := map[eventID]*Operation{}
	var lastRev int64
	var lastEvent *Operation
	var covered int64 // the watcher has a complete view up to here
	var compactedBy *Operation
	var cur *session
	closeSession := func() {
		if cur != nil {
			w.checkSession(client, prefix, cur, seen)
		}
	}
	for _, i := range idx {
		op := &h.Ops[i]
		switch op.Kind {
		case KindList:
			if op.Outcome != OutcomeOK {
				continue
			}
			w.relists++
			compactedBy = nil
			covered = max(covered, op.Output.Revision)
		case KindWatch:
			closeSession()
			w.streams++
			cur = &session{watch: op, from: op.Input.Revision}
			if compactedBy != nil {
				w.rep.violation(ViolationNoRelist, []*Operation{compactedBy, op},
					"watcher %s watched %s again at %s after ErrCompacted at %s without listing first",
					client, prefix, fmtTime(op.Call), fmtTime(compactedBy.End()))
				compactedBy = nil
			}
			if s := op.Input.Revision; s > 0 && covered > 0 && s > covered+1 {
				for _, c := range w.commitsIn(prefix, covered+1, s-1) {
					w.missed++
					w.rep.violation(ViolationResumeGap, []*Operation{op, c},
						"watcher %s resumed watching %s at revision %d at %s, having seen only up to revision %d: it skips revision %d (%s %s %s)",
						client, prefix, s, fmtTime(op.Call), covered, c.Output.Revision, c.Client, c.Kind, c.Key)
				}
			}
			if op.Output.CompactRevision > 0 {
				w.compactions++
				cur.compacted = true
				compactedBy = op
			}
		case KindWatchEvent:
			w.events++
			if cur == nil {
				w.streams++
				cur = &session{}
			}
			id := eventID{op.Output.Revision, op.Output.Key}
			if prev := seen[id]; prev != nil {
				w.duplicates++
				w.rep.violation(ViolationDuplicateEvent, []*Operation{prev, op},
					"watcher %s on %s received the event for %s at revision %d twice, at %s and at %s",
					client, prefix, id.key, id.rev, fmtTime(prev.Call), fmtTime(op.Call))
				continue
			}
			seen[id] = op
			if id.rev < lastRev {
				w.rep.violation(ViolationRevisionRegression, []*Operation{lastEvent, op},
					"watcher %s on %s received revision %d at %s after revision %d at %s: revisions went backwards",
					client, prefix, id.rev, fmtTime(op.Call), lastRev, fmtTime(lastEvent.Call))
			} else {
				lastRev, lastEvent = id.rev, op
			}
			if cur.from == 0 {
				cur.from = id.rev
			}
			cur.last = max(cur.last, id.rev)
			covered = max(covered, id.rev)
		}
	}
	closeSession()
}

// commitsIn returns the committed changes under prefix with revisions in
// [from, to].
func (w *watchRun) commitsIn(prefix string, from, to int64) []*Operation {
	h := w.h
	i := sort.Search(len(w.commits), func(i int) bool { return h.Ops[w.commits[i]].Output.Revision >= from })
	var out []*Operation
	for ; i < len(w.commits); i++ {
		c := &h.Ops[w.commits[i]]
		if c.Output.Revision > to {
			break
		}
		if strings.HasPrefix(c.Key, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// checkSession reports the committed changes a stream should have delivered
// and did not.
func (w *watchRun) checkSession(client, prefix string, s *session, seen map[eventID]*Operation) {
	if s.compacted || s.from == 0 {
		return
	}
	open := w.end
	if s.watch != nil {
		if s.watch.Outcome == OutcomeUnknown {
			if s.watch.GaveUp > 0 {
				open = s.watch.GaveUp
			}
		} else {
			open = s.watch.Return
		}
	}
	for _, c := range w.commitsIn(prefix, s.from, Infinity.Nanoseconds()) {
		if c.Output.Revision > s.last && addTime(c.Return, w.bound) > open {
			continue // not yet due
		}
		if seen[eventID{c.Output.Revision, c.Key}] != nil {
			continue
		}
		w.missed++
		w.rep.violation(ViolationMissedEvent, []*Operation{c},
			"watcher %s on %s never received revision %d (%s %s %s, committed at %s) though its stream, from revision %d, was open until %s",
			client, prefix, c.Output.Revision, c.Client, c.Kind, c.Key, fmtTime(c.Return), s.from, fmtTime(open))
	}
}
