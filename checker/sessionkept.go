package checker

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// SessionKeptOptions configures SessionKept. The zero value takes the TTL
// from the history and keeps 20 violations.
type SessionKeptOptions struct {
	// TTL is the sessions' lease TTL. 0 means History.SessionTTL; if that
	// is 0 too, no loss can be judged and the verdict is unknown.
	TTL time.Duration
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// darkens are the fault actions that, aimed at members only, take those
// members away from the clients and leave the rest as they were.
var darkens = []string{"isolate", "kill", "stop", "freeze", "partition"}

// SessionKept checks that a process keeps its session while it could: it
// lost no lease — its recipe told it that it no longer held its lock or
// led its election — while it was alive, reached the cluster, and a
// quorum of the members stood among those it could talk to. etcd keeps a
// lease alive as long as renewals reach a quorum's leader within the TTL,
// so a session lost in such a window was lost by the client, not by the
// cluster: the usual cause is clientv3's lease keepalive stream, which
// stays on the connection it was opened on, so that when that member goes
// dark with its connection left open (no RST: a blackhole, a machine gone)
// the renewals wait on it while the client's other requests reach the
// members that stand. With gRPC keepalive off — clientv3's default —
// nothing ends that connection before the lease's TTL runs out.
//
// It reads:
//   - a lock holder's loss: a lost (KindLost), the lease being that of the
//     client's latest acquire of the same lock (Output.Lease);
//   - a leader's loss: a resign with outcome ok that the workload did not
//     ask for (Input.Value other than ResignAsked), an instant: the
//     leadership's Done closed; the lease is that of the client's latest
//     campaign in the same election;
//   - crashes, and the faults (History.Faults);
//   - History.Members, History.Links and History.SessionTTL (or the TTL
//     option).
//
// A loss at t is judged on the window from t less twice the TTL and a
// second to t: the lease was last renewed inside it, since clientv3 gives
// up on a lease a TTL after its last answer and notices within a second.
// The loss is a violation when, throughout the window, the client did not
// crash, no fault was aimed at it (a pause, a cut, a revoked lease, ...),
// and every fault in force was one that takes members away (isolate, kill,
// stop, freeze, partition — aimed at members only), or one aimed at other
// clients only; and the members no fault
// touched in the window are a quorum of History.Members and include one
// the client links to; and the last half TTL before the loss holds a
// stretch of a third of the TTL and a second in which the cluster had
// settled — at least 3 s after every member went dark or came back, time
// for a new leader — so that a renewal sent in it would have been
// answered (a TTL under 6 s never leaves such a stretch, and its losses
// go unjudged). Any other fault in the window (a delay, a leader storm, a
// replaced member, a deleted key, a compaction) leaves the loss unjudged: it may
// explain it. The sentence names the lease, the members that stood,
// and the member that went dark — for a fault aimed at "pinned <client>"
// (FaultEvent.Pinned), the member the client's keepalive stream was on.
//
// A history that does not name its members (History.Members, recorded
// since version 5), or a loss that could be judged with no TTL known,
// gives unknown; no loss at all, or none that its faults leave unexplained,
// is ok. Invalid: whatever History.Validate rejects, and a loss with no
// take of the lock or election before it.
func SessionKept(h History, opts SessionKeptOptions) Result {
	rep := newReport(CheckerSessionKept, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	ttl := cmp.Or(opts.TTL, h.SessionTTL)
	var losses []sessionLoss
	for i := range h.Ops {
		op := &h.Ops[i]
		if !isSessionLoss(op) {
			continue
		}
		take := lastTake(&h, op)
		if take == nil {
			return rep.invalid(invalidOp(op, "a %s with no %s of %q by %s before it", lossWord(op), takeKind(op), op.Key, op.Client))
		}
		losses = append(losses, sessionLoss{op: op, take: take})
	}
	judged, explained := 0, 0
	undecided := ""
	for _, l := range losses {
		switch {
		case len(h.Members) == 0:
			undecided = "the history does not name the cluster's members (History.Members, recorded since version 5), so no quorum can be told"
			continue
		case ttl <= 0:
			undecided = "no session TTL is known (History.SessionTTL, or the TTL option), so no loss's window can be told"
			continue
		}
		w := lossWindow(&h, l, ttl)
		if w.why != "" {
			explained++
			continue
		}
		judged++
		rep.violation(ViolationLostWithQuorum, []*Operation{l.take, l.op}, "%s", w.sentence(&h, l))
	}
	rep.res.Metrics["losses"] = float64(len(losses))
	rep.res.Metrics["losses-judged"] = float64(judged)
	rep.res.Metrics["losses-explained"] = float64(explained)
	summary := sprintf("%s lost, %d of them while a quorum stood and the client was alive", plural(len(losses), "session"), judged)
	return rep.done(summary, undecided)
}

// sessionLoss is a recipe telling its client it lost its session: the
// loss and the take (acquire or campaign) whose lease it was.
type sessionLoss struct {
	op, take *Operation
}

// isSessionLoss reports whether op is a recipe telling its client that it
// lost what its lease stood for.
func isSessionLoss(op *Operation) bool {
	switch {
	case op.Outcome != OutcomeOK:
		return false
	case op.Kind == KindLost:
		return true
	case op.Kind == KindResign:
		return op.Input.Value != ResignAsked && op.Return == op.Call
	}
	return false
}

func takeKind(loss *Operation) Kind {
	if loss.Kind == KindResign {
		return KindCampaign
	}
	return KindAcquire
}

func lossWord(loss *Operation) string {
	if loss.Kind == KindResign {
		return "resign the workload did not ask for"
	}
	return string(loss.Kind)
}

// lastTake returns the client's latest take of loss's lock or election
// that returned ok by the loss; nil if there is none.
func lastTake(h *History, loss *Operation) *Operation {
	kind := takeKind(loss)
	var last *Operation
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind == kind && op.Client == loss.Client && op.Key == loss.Key && op.Outcome == OutcomeOK &&
			op.Return <= loss.Call && (last == nil || op.Return >= last.Return) {
			last = op
		}
	}
	return last
}

// lossSpan is what stood in the window before a loss: why the loss is
// explained ("" if it is not), and otherwise the members that went dark
// in it, each with the first fault that took it, and the members that
// stood.
type lossSpan struct {
	from, to time.Duration
	why      string
	dark     map[string]*FaultEvent
	stood    []string
	settled  [2]time.Duration // the longest stretch near the loss with a settled cluster
}

// lossWindow works out the window before loss l.
func lossWindow(h *History, l sessionLoss, ttl time.Duration) lossSpan {
	process := processOf(l.op.Client)
	w := lossSpan{from: max(0, l.op.Call-2*ttl-time.Second), to: l.op.Call, dark: map[string]*FaultEvent{}}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind == KindCrash && processOf(op.Client) == process && op.Call >= w.from && op.Call <= w.to {
			w.why = sprintf("%s crashed at %s", process, fmtTime(op.Call))
			return w
		}
	}
	for i := range h.Faults {
		f := &h.Faults[i]
		if !inForceDuring(f, w.from, w.to) {
			continue
		}
		if why := explains(h, f, process); why != "" {
			w.why = why
			return w
		}
		if slices.Contains(darkens, f.Action) {
			for _, m := range f.Targets {
				if _, ok := w.dark[m]; !ok {
					w.dark[m] = f
				}
			}
		}
	}
	for _, m := range h.Members {
		if w.dark[m] == nil {
			w.stood = append(w.stood, m)
		}
	}
	if len(w.stood) <= len(h.Members)/2 {
		w.why = sprintf("only %s of %d members stood", strings.Join(w.stood, ", "), len(h.Members))
		return w
	}
	links, ok := h.Links[process]
	if ok && !slices.ContainsFunc(links, func(m string) bool { return slices.Contains(w.stood, m) }) {
		w.why = sprintf("%s talks only to %s, none of which stood", process, strings.Join(links, ", "))
		return w
	}
	w.settled = settledStretch(w, l.op.Call-ttl/2, l.op.Call)
	if need := ttl/3 + time.Second; w.settled[1]-w.settled[0] < need {
		w.why = sprintf("no %s in the last half TTL before the loss was clear of a member going dark or coming back and the election that may follow", fmtDur(need))
	}
	return w
}

// settle is how long after a member goes dark or comes back the cluster
// may be without a leader: two of etcd's default election timeouts (1 s)
// and a pre-vote, with room.
const settle = 3 * time.Second

// settledStretch returns the longest stretch of [from, to] that is at
// least settle after the start and the end of every fault that darkened
// members in w: a time the members that stood had a leader and could
// answer a renewal.
func settledStretch(w lossSpan, from, to time.Duration) [2]time.Duration {
	var unsettled [][2]time.Duration
	for _, f := range w.dark {
		unsettled = append(unsettled, [2]time.Duration{f.Start, f.Start + settle})
		if f.Healed {
			unsettled = append(unsettled, [2]time.Duration{f.End, f.End + settle})
		}
	}
	slices.SortFunc(unsettled, func(a, b [2]time.Duration) int { return cmp.Compare(a[0], b[0]) })
	best := [2]time.Duration{from, from}
	at := max(from, 0)
	for _, u := range append(unsettled, [2]time.Duration{to, to}) {
		if end := min(u[0], to); end-at > best[1]-best[0] {
			best = [2]time.Duration{at, end}
		}
		at = max(at, u[1])
	}
	return best
}

// inForceDuring reports whether fault f was in force at some time in [from,
// to]; a fault never healed lasts to the end.
func inForceDuring(f *FaultEvent, from, to time.Duration) bool {
	if f.NotApplicable != "" || (f.Err != "" && f.End == f.Start && !f.Healed) {
		return false
	}
	stop := f.End
	if !f.Healed {
		stop = Infinity
	}
	return f.Start <= to && stop >= from
}

// explains returns why fault f may explain a loss of process's session,
// or "" if it takes only members away or touches only other clients. A
// compaction explains a loss too: a recipe whose Done follows a watch
// (election keywatched) closes it when the watch is compacted.
func explains(h *History, f *FaultEvent, process string) string {
	members, others := 0, 0
	for _, t := range f.Targets {
		switch {
		case processOf(t) == process:
			return sprintf("fault %s was aimed at %s", f.Name, process)
		case slices.Contains(h.Members, t):
			members++
		case strings.HasPrefix(t, "key:"), strings.HasPrefix(t, "prefix:"):
			return sprintf("fault %s changed the keys", f.Name)
		default:
			others++
		}
	}
	switch {
	case members == 0 && others > 0:
		return "" // aimed at other clients only
	case members > 0 && others == 0 && slices.Contains(darkens, f.Action):
		return ""
	}
	return sprintf("fault %s may have ended the session", f.Name)
}

// processOf returns the process a client name belongs to: "c1" for the
// thread "c1/2".
func processOf(client string) string {
	p, _, _ := strings.Cut(client, "/")
	return p
}

// sentence says that l was lost while w's quorum stood, and why that is a
// fault of the client's.
func (w lossSpan) sentence(h *History, l sessionLoss) string {
	process := processOf(l.op.Client)
	what := fmt.Sprintf("its holder's Done on lock %s closed", l.op.Key)
	if l.op.Kind == KindResign {
		what = fmt.Sprintf("its leadership's Done in election %s closed", l.op.Key)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s's session (lease %x) was lost at %s (%s) while %s (a quorum of %d) stood and %s could reach them, "+
		"from %s to %s, no fault was aimed at it, and from %s to %s the cluster had settled (a renewal would have been answered)",
		l.op.Client, l.take.Output.Lease, fmtTime(l.op.Call), what, memberList(w.stood), len(h.Members), process,
		fmtTime(w.from), fmtTime(w.to), fmtTime(w.settled[0]), fmtTime(w.settled[1]))
	dark := slices.Sorted(func(yield func(string) bool) {
		for m := range w.dark {
			if !yield(m) {
				return
			}
		}
	})
	for _, m := range dark {
		f := w.dark[m]
		switch {
		case f.Pinned == process:
			fmt.Fprintf(&b, "; its keepalive stream stayed on %s, dark since %s (%s)", m, fmtTime(f.Start), f.Name)
		default:
			fmt.Fprintf(&b, "; %s was dark from %s (%s)", m, fmtTime(f.Start), f.Name)
		}
	}
	if len(dark) == 0 {
		b.WriteString("; every member stood")
	}
	if len(dark) > 0 {
		b.WriteString(": clientv3 keeps a lease's keepalive stream on the connection it was opened on, and with gRPC keepalive off " +
			"(clientv3's default) nothing ends a connection whose member went dark without a reset before the TTL runs out; " +
			"set the client's DialKeepAliveTime and DialKeepAliveTimeout so that gRPC closes it well within the TTL " +
			"(gRPC pings no more often than every 10 s), or renew by requests that go to the members that stand")
	} else {
		b.WriteString(": nothing in the cluster ended it; the client let its lease lapse")
	}
	return b.String()
}

// memberList lists member names: "member m1", "members m1 and m2",
// "members m0, m1 and m2".
func memberList(ms []string) string {
	switch len(ms) {
	case 0:
		return "no member"
	case 1:
		return "member " + ms[0]
	}
	return "members " + strings.Join(ms[:len(ms)-1], ", ") + " and " + ms[len(ms)-1]
}
