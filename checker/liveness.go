package checker

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// defaultTTL is the session TTL assumed when neither the options nor the
// history give one: etcd's concurrency package default.
const defaultTTL = 60 * time.Second

// LivenessOptions configures Liveness. The zero value takes the TTL from
// the history and allows TTL + 2 s.
type LivenessOptions struct {
	// TTL is the clients' session TTL. 0 means History.SessionTTL, or 60 s
	// if that is 0 too.
	TTL time.Duration
	// Bound is how long a lock may stay free, or an election leaderless,
	// while someone waits for it after the last heal. 0 means TTL + 2 s.
	Bound time.Duration
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

func (o LivenessOptions) resolve(h *History) (ttl, bound time.Duration) {
	ttl = o.TTL
	if ttl <= 0 {
		ttl = h.SessionTTL
	}
	if ttl <= 0 {
		ttl = defaultTTL
	}
	bound = o.Bound
	if bound <= 0 {
		bound = livenessBound(ttl)
	}
	return ttl, bound
}

// Liveness checks that, after the last fault is healed, locks and elections
// make progress: a lock nobody holds is not left wanted for longer than the
// bound, and neither is an election nobody leads.
//
// It reads acquire, release and crash (locks; rlock and runlock too, whose
// holds are holds of the same lock), and campaign, resign and crash
// (elections), per Key, with the holds MutualExclusion and
// ElectionSafety read, and History.Faults:
//   - A key is held from an ok acquire's (campaign's) return until the
//     lock is freed: an ok release's (resign's) return; a release of unknown
//     outcome's call plus the TTL (the client's session is assumed to be
//     closed); a crash's call plus the TTL (its lease expires). So a
//     crashed holder's lock must be acquired by a waiter within TTL + bound
//     of the crash.
//   - A key is wanted while some client waits for it. One acquire
//     (campaign) is a wait from its call to its return, or, when its
//     outcome is unknown, to when the client gave up (GaveUp, else the end
//     of the history). A client that retries goes on waiting: when one of
//     its acquires on the key fails or has an unknown outcome, and its next
//     acquire on the key is called no later than the bound after that wait
//     ended, without a crash of the client in between, the two are one
//     wait, and so on until an acquire succeeds or the client stays away
//     for longer than the bound. The gap allowed is the bound because the
//     key may stay free for that long anyway; a client that gives up for
//     good stops waiting when it last gave up.
//   - From the last heal on, no stretch of time during which a key is
//     wanted but not held may last longer than the bound. A take of unknown
//     outcome does not count as holding: if it secretly succeeded and its
//     client never learns so, waiters starve, and that is a violation.
//
// A lock left free too long is ViolationStarvation, an election left
// without a leader ViolationLeaderless. "Free" is the checker's reckoning:
// no client knew it held the key. The sentence names what may have held it
// all the same, and the violation carries the operations that show it: the
// last holder's crash (and the lease its take recorded, or that it recorded
// none), its give of unknown outcome — timed out, or never returned — that
// the checker took to free the key a TTL after its call, its give that
// returned, and takes of unknown outcome from earlier waits whose clients
// gave nothing back, any of which may have won unseen. Without a violation, the verdict is
// unknown when a fault may still be in force at the end (see
// FaultEvent.InForce), or when no client acquired a lock or won an election
// after the last heal.
func Liveness(h History, opts LivenessOptions) Result {
	rep := newReport(CheckerLiveness, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	locks, err := collectHolds(&h, lockPair)
	if err != nil {
		return rep.invalid(err)
	}
	reads, err := collectHolds(&h, readPair)
	if err != nil {
		return rep.invalid(err)
	}
	locks = withReads(&h, locks, reads)
	elections, err := collectHolds(&h, electionPair)
	if err != nil {
		return rep.invalid(err)
	}
	ttl, bound := opts.resolve(&h)
	var heal time.Duration
	for _, f := range h.Faults {
		if f.InForce() {
			rep.res.Metrics["keys"] = float64(len(locks) + len(elections))
			return rep.done("liveness after the last heal", sprintf("fault %q, injected at %s, was never healed", f.Name, fmtTime(f.Start)))
		}
		heal = max(heal, f.End)
	}
	end := h.lastTime()
	lv := livenessRun{h: &h, rep: rep, ttl: ttl, bound: bound, heal: heal, end: end}
	for _, kh := range locks {
		lv.key(lockPair, kh)
	}
	for _, kh := range elections {
		lv.key(electionPair, kh)
	}
	m := rep.res.Metrics
	m["keys"] = float64(len(locks) + len(elections))
	m["last_heal_seconds"] = heal.Seconds()
	m["bound_seconds"] = bound.Seconds()
	m["keys_with_progress"] = float64(lv.progressed)
	if len(lv.recovery) > 0 {
		rep.res.Distributions = map[string]Distribution{"recovery": newDistribution(lv.recovery)}
	}
	summary := sprintf("%s and %s after the last heal at %s (bound %s)",
		plural(len(locks), "lock"), plural(len(elections), "election"), fmtTime(heal), bound)
	undecided := ""
	if lv.progressed == 0 {
		undecided = "no client acquired a lock or won an election after the last heal"
	}
	return rep.done(summary, undecided)
}

type livenessRun struct {
	h          *History
	rep        *report
	ttl, bound time.Duration
	heal, end  time.Duration
	progressed int
	recovery   []time.Duration // per key: last heal → first take after it
}

// livenessEdge is a change in how many clients hold or wait for a key.
type livenessEdge struct {
	at    time.Duration
	held  int // +1, -1 or 0
	wait  int // +1, -1 or 0
	op    int // the operation behind the edge: the take, or the wait's take
	give  int // for a hold's end: the give or crash that ended it
	crash bool
}

// livenessWait is one client's wait for a key: a take, or a run of retries.
type livenessWait struct {
	client      string
	from, to    time.Duration
	first, last int // the first and the last take, indices in History.Ops
	attempts    int
}

func (lv *livenessRun) key(p pairKinds, kh keyHolds) {
	h := lv.h
	var edges []livenessEdge
	firstAfterHeal := Infinity
	for _, hd := range kh.holds {
		free := Infinity
		crash := false
		if hd.give >= 0 {
			g := &h.Ops[hd.give]
			switch {
			case g.Kind == KindCrash:
				free, crash = addTime(g.Call, lv.ttl), true
			case g.Outcome == OutcomeUnknown:
				free = addTime(g.Call, lv.ttl)
			default:
				free = g.Return
			}
		}
		edges = append(edges,
			livenessEdge{at: hd.start, held: +1, op: hd.take},
			livenessEdge{at: free, held: -1, op: hd.take, give: hd.give, crash: crash})
		if hd.start >= lv.heal {
			firstAfterHeal = min(firstAfterHeal, hd.start)
		}
	}
	waits := lv.waits(p, kh)
	for _, w := range waits {
		edges = append(edges,
			livenessEdge{at: w.from, wait: +1, op: w.first},
			livenessEdge{at: w.to, wait: -1, op: w.last})
	}
	if firstAfterHeal < Infinity {
		lv.progressed++
		lv.recovery = append(lv.recovery, firstAfterHeal-lv.heal)
	}
	// At equal times, take holds before dropping them and drop waits
	// before adding them, so that handovers leave no gap.
	slices.SortFunc(edges, func(a, b livenessEdge) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(b.held, a.held), cmp.Compare(a.wait, b.wait))
	})
	held, waiting := 0, 0
	since := time.Duration(-1)        // start of the current wanted-but-free stretch
	freedBy := livenessEdge{give: -1} // the edge that last freed the key
	for _, e := range edges {
		wasStarving := held == 0 && waiting > 0
		held += e.held
		waiting += e.wait
		if e.held < 0 && held == 0 {
			freedBy = e
		}
		starving := held == 0 && waiting > 0
		switch {
		case starving && !wasStarving:
			since = e.at
		case !starving && wasStarving:
			lv.stretch(p, kh, waits, since, e.at, freedBy)
		}
	}
}

// waits joins each client's takes of the key into waits: a wait whose last
// take failed or has an unknown outcome runs on into the client's next take
// if that is called no later than the bound after the wait ended, with no
// crash of the client in between.
func (lv *livenessRun) waits(p pairKinds, kh keyHolds) []livenessWait {
	h := lv.h
	var waits []livenessWait
	open := map[string]int{} // client → index into waits of its wait that may go on
	for _, i := range kh.ops {
		op := &h.Ops[i]
		if op.Kind == KindCrash {
			delete(open, op.Client)
			continue
		}
		if !p.takes(op.Kind) {
			continue
		}
		end := lv.waitEnd(op)
		if j, ok := open[op.Client]; ok && op.Call <= addTime(waits[j].to, lv.bound) {
			w := &waits[j]
			w.to, w.last = max(w.to, end), i
			w.attempts++
		} else {
			open[op.Client] = len(waits)
			waits = append(waits, livenessWait{client: op.Client, from: op.Call, to: end, first: i, last: i, attempts: 1})
		}
		if op.Outcome == OutcomeOK {
			delete(open, op.Client)
		}
	}
	return waits
}

// waitEnd is when a client stopped waiting on op.
func (lv *livenessRun) waitEnd(op *Operation) time.Duration {
	switch {
	case op.Outcome != OutcomeUnknown:
		return op.Return
	case op.GaveUp > 0:
		return op.GaveUp
	default:
		return lv.end
	}
}

// stretch judges one interval [from, to) during which the key was wanted
// but free.
func (lv *livenessRun) stretch(p pairKinds, kh keyHolds, waits []livenessWait, from, to time.Duration, freedBy livenessEdge) {
	from = max(from, lv.heal)
	if to <= from || to-from <= lv.bound {
		return
	}
	h := lv.h
	// The waiter that had waited longest when the stretch began.
	var waiter *livenessWait
	for i := range waits {
		w := &waits[i]
		if w.from <= from && w.to > from && (waiter == nil || w.from < waiter.from) {
			waiter = w
		}
	}
	kind, what, verb := ViolationStarvation, "was acquired by nobody", "waited for it"
	if p.take == KindCampaign {
		kind, what, verb = ViolationLeaderless, "had no leader", "campaigned"
	}
	who, attempts := "a client", ""
	ops := []*Operation{}
	if waiter != nil {
		who = waiter.client
		ops = append(ops, &h.Ops[waiter.first])
		if waiter.attempts > 1 {
			attempts = sprintf(", over %d attempts", waiter.attempts)
			ops = append(ops, &h.Ops[waiter.last])
		}
	}
	why, evidence := lv.holder(p, kh, waits, from, freedBy)
	ops = append(ops, evidence...)
	lv.rep.violation(kind, ops, "%s %s %s while %s %s from %s to %s (%s, bound %s%s), after the last heal at %s; %s",
		p.noun, kh.key, what, who, verb, fmtTime(from), fmtTime(to), fmtDur(to-from), lv.bound, attempts, fmtTime(lv.heal), why)
}

// maxSuspects caps the takes of unknown outcome a sentence names.
const maxSuspects = 2

// holder says what may have held the key during the stretch from from
// although no client knew it held it, and returns the operations that show
// it: the give (release, resign) or crash that last freed it in the
// checker's reckoning, and takes of unknown outcome that may have
// succeeded unseen.
func (lv *livenessRun) holder(p pairKinds, kh keyHolds, waits []livenessWait, from time.Duration, freedBy livenessEdge) (string, []*Operation) {
	h := lv.h
	holder := "holder"
	if p.take == KindCampaign {
		holder = "leader"
	}
	var parts []string
	var ops []*Operation
	// A waiter key orphaned by a take given up in the queue is named in
	// place of the last release's blame: a crash or a give of unknown
	// outcome has an explanation of its own.
	var orphans []int
	if freedBy.give >= 0 && !freedBy.crash && h.Ops[freedBy.give].Outcome != OutcomeUnknown {
		orphans = lv.orphans(p, kh, waits, from)
	}
	if freedBy.give >= 0 && freedBy.at <= from {
		g := &h.Ops[freedBy.give]
		ops = append(ops, g)
		var kept string
		var keptOps []*Operation
		if !freedBy.crash && g.Outcome == OutcomeOK {
			kept, keptOps = lv.keptKey(p, holder, g, &h.Ops[freedBy.op])
		}
		switch {
		case freedBy.crash && h.Ops[freedBy.op].Output.Lease != 0:
			parts = append(parts, sprintf("its last %s %s crashed at %s, so its lease %x (TTL %s) should have taken its key by %s: "+
				"either the key outlived the lease (each new etcd leader renews every lease) or the waiters missed its deletion",
				holder, g.Client, fmtTime(g.Call), h.Ops[freedBy.op].Output.Lease, lv.ttl, fmtTime(freedBy.at)))
		case freedBy.crash && noLeasePut(h, g.Client, g.Call) != nil:
			put := noLeasePut(h, g.Client, g.Call)
			parts = append(parts, sprintf("its last %s %s crashed at %s, and its key %s was on no lease: %s wrote it so (op %d at %s)%s, "+
				"so nothing took the key when %s died, and it stays in etcd until someone deletes it; put the key on the session's lease",
				holder, g.Client, fmtTime(g.Call), put.Key, processOf(put.Client), put.ID, fmtTime(put.Call), stillHeld(h, put.Key), g.Client))
		case freedBy.crash:
			parts = append(parts, sprintf("its last %s %s crashed at %s, so its lease (TTL %s) should have taken its key by %s, "+
				"but its %s recorded no lease: either the key is on none, or it outlived the lease (each new etcd leader renews every lease), "+
				"or the waiters missed its deletion",
				holder, g.Client, fmtTime(g.Call), lv.ttl, fmtTime(freedBy.at), p.take))
		case g.Outcome == OutcomeUnknown:
			// The checker counts the key free a TTL after the call, not
			// when the give ended: say so, lest the two times read as a
			// contradiction.
			part := sprintf("its last %s %s's %s, called at %s, %s; from %s, a TTL (%s) after that call, the checker counted the %s free, though the %s had not answered",
				holder, g.Client, g.Kind, fmtTime(g.Call), unreturned(g), fmtTime(freedBy.at), lv.ttl, p.noun, g.Kind)
			if lease := h.Ops[freedBy.op].Output.Lease; lease != 0 {
				part += sprintf(": while %s's session (lease %x) lives, a %s whose outcome is unknown (stuck on a dropped proposal, say) "+
					"may have left the key in etcd; on such an error, close the session or delete the key again", g.Client, lease, g.Kind)
			} else {
				part += sprintf(": a %s whose outcome is unknown (stuck on a dropped proposal, say) may have left the key in etcd, "+
					"and %s's %s recorded no lease that would take it; on such an error, delete the key again",
					g.Kind, g.Client, p.take)
			}
			parts = append(parts, part)
		case kept != "":
			ops = append(ops, keptOps...)
			parts = append(parts, sprintf("its last %s %s %s at %s%s", holder, g.Client, p.gave, fmtTime(g.Return), kept))
		case len(orphans) > 0:
			parts = append(parts, sprintf("its last %s %s %s at %s", holder, g.Client, p.gave, fmtTime(g.Return)))
		default:
			parts = append(parts, sprintf("its last %s %s %s at %s: either that %s left the key in etcd or the waiters missed its deletion",
				holder, g.Client, p.gave, fmtTime(g.Return), g.Kind))
		}
	}
	// Takes of unknown outcome from waits that ended before the stretch
	// began, whose client gave nothing back (and did not crash) before it
	// began: if one took effect, its client never learnt so, and its live
	// session keeps the key. The takes of the waits the stretch starves are
	// the starving, not suspects.
	var suspects []int
	for _, i := range kh.ops {
		op := &h.Ops[i]
		if !p.takes(op.Kind) || op.Outcome != OutcomeUnknown || op.Call >= from {
			continue
		}
		if slices.ContainsFunc(waits, func(w livenessWait) bool {
			return w.client == op.Client && w.from <= op.Call && op.Call <= w.to && w.to > from
		}) {
			continue
		}
		cleared := false
		for _, j := range kh.ops {
			o := &h.Ops[j]
			if o.Client == op.Client && (p.gives(o.Kind) || o.Kind == KindCrash) && o.Call > op.Call && o.Call <= from {
				cleared = true
				break
			}
		}
		if !cleared {
			suspects = append(suspects, i)
		}
	}
	for n, i := range orphans {
		if n == maxSuspects {
			parts = append(parts, sprintf("and %s like them", plural(len(orphans)-n, "more given-up "+string(p.take))))
			break
		}
		op := &h.Ops[i]
		ops = append(ops, op)
		if put := recipePut(h, op.Client, op.Call, op.GaveUp); put != nil && put.Output.Lease == 0 {
			ops = append(ops, put)
			parts = append(parts, sprintf("%s's %s called at %s %s while it waited, and its key %s was on no lease (op %d at %s)%s: "+
				"no session or lease will ever take it, so it stays in etcd, and every later %s queues behind it, until someone deletes it; "+
				"put the key on the session's lease",
				op.Client, op.Kind, fmtTime(op.Call), unreturned(op), put.Key, put.ID, fmtTime(put.Call), stillHeld(h, put.Key), op.Kind))
			continue
		}
		left := ""
		if put := recipePut(h, op.Client, op.Call, op.GaveUp); put != nil {
			ops = append(ops, put)
			left = sprintf(" (%s wrote its key %s at %s, op %d, and did not delete it", processOf(op.Client), put.Key, fmtTime(put.Call), put.ID)
			if h.Final.Complete() {
				if fk, ok := h.Final.Key(put.Key); ok && (put.Output.Revision == 0 || fk.CreateRevision == put.Output.Revision) {
					left += sprintf("; etcd still held it when the run ended at %s", fmtTime(h.Final.At))
				} else {
					left += sprintf("; etcd no longer held it when the run ended at %s", fmtTime(h.Final.At))
				}
			}
			left += ")"
		}
		parts = append(parts, sprintf("%s's %s called at %s %s while it waited, and %s asked again: given up while it waits, "+
			"%s %s may leave its waiter key in etcd%s — an orphaned waiter key, which every later %s queues behind for as long as "+
			"%s's session lives; on such an error, delete the waiter key (or close the session)",
			op.Client, op.Kind, fmtTime(op.Call), unreturned(op), op.Client, article(string(op.Kind)), op.Kind, left, op.Kind, op.Client))
	}
	for n, i := range suspects {
		if n == maxSuspects {
			parts = append(parts, sprintf("and %s like them", plural(len(suspects)-n, "more "+string(p.take))))
			break
		}
		op := &h.Ops[i]
		ops = append(ops, op)
		parts = append(parts, sprintf("%s's %s called at %s %s and %s gave nothing back after it: if it took effect, %s never learnt so and its session keeps the key",
			op.Client, op.Kind, fmtTime(op.Call), unreturned(op), op.Client, op.Client))
	}
	if len(parts) == 0 {
		return sprintf("no client held the %s as far as the history shows, and nothing it records explains the wait", p.noun), ops
	}
	return strings.Join(parts, "; "), ops
}

// article is "a" or "an", as word begins.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// orphans returns the takes of unknown outcome, called before from, that a
// client gave up on (GaveUp set) and then asked again — the earlier
// attempts of a wait that spans the stretch — with nothing given back
// between: a take given up in the queue may leave its waiter key,
// which the later takes of every client queue behind. The takes of those
// waits are not suspects of having taken the key unseen: their client
// goes on asking for it.
func (lv *livenessRun) orphans(p pairKinds, kh keyHolds, waits []livenessWait, from time.Duration) []int {
	h := lv.h
	var out []int
	for _, i := range kh.ops {
		op := &h.Ops[i]
		if !p.takes(op.Kind) || op.Outcome != OutcomeUnknown || op.GaveUp == 0 || op.Call >= from {
			continue
		}
		if !slices.ContainsFunc(waits, func(w livenessWait) bool {
			return w.client == op.Client && w.from <= op.Call && op.Call <= w.to && w.to > from && i != w.last
		}) {
			continue
		}
		cleared := slices.ContainsFunc(kh.ops, func(j int) bool {
			o := &h.Ops[j]
			return o.Client == op.Client && (p.gives(o.Kind) || o.Kind == KindCrash) && o.Call > op.Call && o.Call <= from
		})
		if cleared {
			continue
		}
		// Cleaned up if its process deleted the key the take wrote before
		// it asked again.
		again := from
		for _, j := range kh.ops {
			if o := &h.Ops[j]; o.Client == op.Client && p.takes(o.Kind) && o.Call > op.Call {
				again = o.Call
				break
			}
		}
		if cleanedUp(h, op, again) == nil && !wroteNothing(h, op) {
			out = append(out, i)
		}
	}
	return out
}

// unreturned says how an operation of unknown outcome ended, e.g. "was
// given up at 6.000s (context deadline exceeded)" or "never returned".
func unreturned(op *Operation) string {
	switch {
	case op.Error == pendingError:
		return "never returned"
	case op.GaveUp > 0 && op.Error != "":
		return sprintf("was given up at %s (%s)", fmtTime(op.GaveUp), op.Error)
	case op.GaveUp > 0:
		return sprintf("was given up at %s", fmtTime(op.GaveUp))
	default:
		return "has an unknown outcome"
	}
}

// noLeasePut returns the latest recipe key client's process put on no
// lease before t, if its latest recipe put before t was on none; nil
// otherwise.
func noLeasePut(h *History, client string, t time.Duration) *Operation {
	if put := recipePut(h, client, 0, t); put != nil && put.Output.Lease == 0 && put.Outcome == OutcomeOK {
		return put
	}
	return nil
}

// cleanedUp returns the delete, by op's process and called by t, that
// took away the recipe key op wrote while it waited (its waiter key): a
// take given up in the queue that cleaned up after itself leaves no
// orphan. nil when the history records no such put, or no delete of it.
func cleanedUp(h *History, op *Operation, t time.Duration) *Operation {
	put := recipePut(h, op.Client, op.Call, op.GaveUp)
	if put == nil {
		return nil
	}
	process := processOf(op.Client)
	for i := range h.Calls {
		d := &h.Calls[i]
		if d.Kind == KindDeleteRange && d.Outcome == OutcomeOK && processOf(d.Client) == process &&
			d.Call >= put.Call && d.Call <= t && deletes(d, put.Key) {
			return d
		}
	}
	return nil
}

// deletes reports whether the delete-range d takes key k: k itself, or a
// key in d's range.
func deletes(d *Operation, k string) bool {
	switch end := d.Input.Value; {
	case end == "":
		return k == d.Key
	case end == "\x00":
		return k >= d.Key
	default:
		return k >= d.Key && k < end
	}
}
