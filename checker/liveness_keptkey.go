package checker

// What the recorded calls and end state say of a starvation's cause: a
// take given up in the queue that wrote nothing orphaned no waiter key,
// and a give that returned ok left its holder's key in etcd when the end
// state still holds that very key, on the lease it was written on.

// wroteNothing reports whether the recorded calls of op's process show
// that op, a take given up (GaveUp set), wrote no key of the recipe's:
// puts of the recipe's keys were recorded while it waited, and every one
// of them failed (the branch of a transaction that did not run). With no
// put recorded the history does not say, and it reports false.
func wroteNothing(h *History, op *Operation) bool {
	rk := newRecipeKeys(h)
	process := processOf(op.Client)
	seen := false
	for i := range h.Calls {
		c := &h.Calls[i]
		if c.Kind != KindPut || c.Call < op.Call || c.Call > op.GaveUp || processOf(c.Client) != process || !rk.has(c.Key) {
			continue
		}
		if c.Outcome != OutcomeFailed {
			return false
		}
		seen = true
	}
	return seen
}

// keptKey says, when the end state shows that g, a give that returned ok,
// left in etcd the key its holder's take wrote — etcd held that key when
// the run ended, with the create revision and on the lease the take's put
// recorded — what it shows, as words to follow "released at T": whether
// the holder had been told it may have lost the key (KindLost) before it
// gave it; the key and lease; and, when the lease was renewed after the
// give and after the last fault that may have renewed every lease, that
// the holder's lease never expired. It returns "" and nil when the
// history does not show it (no complete end state, no put recorded, or
// the key deleted or written anew since), and otherwise the put.
func (lv *livenessRun) keptKey(p pairKinds, holder string, g, take *Operation) (string, []*Operation) {
	h := lv.h
	if !h.Final.Complete() || take.Outcome != OutcomeOK {
		return "", nil
	}
	put := recipePut(h, take.Client, take.Call, take.Return)
	if put == nil || put.Outcome != OutcomeOK {
		return "", nil
	}
	fk, ok := h.Final.Key(put.Key)
	if !ok || fk.Lease != put.Output.Lease || put.Output.Revision != 0 && fk.CreateRevision != put.Output.Revision {
		return "", nil
	}
	on := "on no lease"
	if put.Output.Lease != 0 {
		on = sprintf("on lease %x", put.Output.Lease)
	}
	told := ""
	for i := range h.Ops {
		if l := &h.Ops[i]; l.Kind == KindLost && l.Client == take.Client && l.Key == take.Key && l.Call >= take.Return && l.Call <= g.Call {
			told = sprintf(" (told at %s that it may have lost the %s)", fmtTime(l.Call), p.noun)
		}
	}
	s := sprintf("%s, but that %s left its key in etcd: %s wrote %s %s (op %d at %s), and etcd still held it, on that lease, when the run ended at %s",
		told, g.Kind, processOf(take.Client), put.Key, on, put.ID, fmtTime(put.Call), fmtTime(h.Final.At))
	fl, alive := h.Final.Lease(put.Output.Lease)
	if put.Output.Lease == 0 || !alive || fl.TTL <= 0 {
		return s + sprintf("; on %s, delete the key", g.Kind), []*Operation{put}
	}
	// etcd counts a lease's remaining time down from its last renewal, so
	// the lease was last renewed no earlier than this.
	renewed := h.Final.At - fl.TTL + fl.Remaining
	since := max(g.Return, renewedBy(h, g.Return))
	if renewed <= since {
		return s + sprintf(", the lease still alive with %s of its %s left; on %s, delete the key or revoke the lease", fl.Remaining, fl.TTL, g.Kind),
			[]*Operation{put}
	}
	after := sprintf("%s after that %s", fmtDur(renewed-g.Return), g.Kind)
	if since > g.Return {
		after += sprintf(" and after the last fault that could renew every lease ended at %s", fmtTime(since))
	}
	s += sprintf(", with %s of the lease's %s TTL left: the lease was last renewed at %s or later, %s — a %s whose lease never expired: "+
		"something went on keeping %s's lease alive after it let the %s go (a keep-alive it no longer watched, say); "+
		"on %s, delete the key or revoke the lease, and stop every keep-alive of it",
		fl.Remaining, fl.TTL, fmtTime(renewed), after, holder, take.Client, p.noun, g.Kind)
	return s, []*Operation{put}
}
