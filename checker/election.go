package checker

// ElectionOptions configures ElectionSafety. The zero value keeps 20
// violations.
type ElectionOptions struct {
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// ElectionSafety checks leader elections, per election name Key.
//
// It reads:
//   - campaign, resign, crash: leaderships, exactly as MutualExclusion reads
//     acquire, release and crash as holds. At most one client may believe
//     it leads at any instant: leaderships never overlap (touching ones do
//     not overlap).
//   - campaign's Output.Token, the term (the leader key's create
//     revision), 0 if not recorded: each leadership's term must exceed the
//     terms of all leaderships that began before it.
//   - leader-observed with outcome ok: Output.Token, the term seen (0 if not
//     recorded), and Output.Value, the leader's proposal. Per observer and
//     election, in call order, the terms seen never go backwards; and a
//     term seen is led by the campaign that won it (same proposal,
//     Input.Value).
//
// For its sentences only, it reads History.SessionTTL, campaign's
// Output.Lease and History.Faults, as MutualExclusion does: a two-leaders
// sentence says by how much the earlier leader outlived its lease on the
// server when the faults prove it.
//
// Invalid: a resign with no matching campaign, a campaign while already
// leading, an operation without an election name, and whatever
// History.Validate rejects. With no leadership and no observation to judge
// the verdict is unknown.
func ElectionSafety(h History, opts ElectionOptions) Result {
	rep := newReport(CheckerElectionSafety, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	elections, err := collectHolds(&h, electionPair)
	if err != nil {
		return rep.invalid(err)
	}
	for i := range h.Ops {
		if op := &h.Ops[i]; op.Kind == KindLeaderObserved && op.Key == "" {
			return rep.invalid(invalidOp(op, "leader-observed without an election name"))
		}
	}
	leaderships, withTerm := 0, 0
	// winner[key][term] is the campaign that won term.
	winner := map[string]map[int64]*Operation{}
	for _, e := range elections {
		leaderships += len(e.holds)
		overlaps(e.holds, func(o overlap) {
			msg, ops := describeOverlap(&h, electionPair, e.key, o)
			rep.violation(ViolationTwoLeaders, ops, "%s", msg)
		})
		winner[e.key] = map[int64]*Operation{}
		var top *hold // the earlier leadership with the largest term
		for i := range e.holds {
			hd := &e.holds[i]
			c := &h.Ops[hd.take]
			term := c.Output.Token
			if term <= 0 {
				continue
			}
			withTerm++
			winner[e.key][term] = c
			if top != nil {
				prev := &h.Ops[top.take]
				if term <= prev.Output.Token {
					termRegression(rep, &h, e.key, top, hd)
				}
			}
			if top == nil || term > h.Ops[top.take].Output.Token {
				top = hd
			}
		}
	}

	keys, groups := groupByKey(&h, KindLeaderObserved)
	observations := 0
	for _, k := range keys {
		// last[observer] is the observation with the largest term so far.
		last := map[string]*Operation{}
		for _, i := range groups[k] {
			o := &h.Ops[i]
			if o.Outcome != OutcomeOK || o.Output.Missing {
				continue
			}
			observations++
			term := o.Output.Token
			if term <= 0 {
				continue
			}
			if prev := last[o.Client]; prev != nil && term < prev.Output.Token {
				rep.violation(ViolationObserverRegression, []*Operation{prev, o},
					"observer %s saw the term of election %s go back from %d at %s to %d at %s",
					o.Client, k, prev.Output.Token, fmtTime(prev.Call), term, fmtTime(o.Call))
			}
			if prev := last[o.Client]; prev == nil || term > prev.Output.Token {
				last[o.Client] = o
			}
			if c := winner[k][term]; c != nil && o.Output.Value != "" && o.Output.Value != c.Input.Value {
				rep.violation(ViolationLeaderMismatch, []*Operation{c, o},
					"observer %s saw %q lead election %s in term %d at %s, but %s won term %d proposing %q",
					o.Client, o.Output.Value, k, term, fmtTime(o.Call), c.Client, term, c.Input.Value)
			}
		}
	}
	m := rep.res.Metrics
	m["elections"] = float64(len(elections))
	m["leaderships"] = float64(leaderships)
	m["leaderships_with_term"] = float64(withTerm)
	m["observations"] = float64(observations)
	summary := sprintf("%s (%d with a term) in %s, %s",
		plural(leaderships, "leadership"), withTerm, plural(len(elections), "election"), plural(observations, "observation"))
	undecided := ""
	if leaderships == 0 && observations == 0 {
		undecided = "nobody led an election and nobody observed a leader"
	}
	return rep.done(summary, undecided)
}

// termRegression reports that later won a term no larger than top's, the
// earlier leadership with the largest term. The same term twice is the
// same leader key, never deleted in between: if top's leader resigned and
// was told it had, the sentence says the key outlived that resign.
func termRegression(rep *report, h *History, key string, top, later *hold) {
	prev, c := &h.Ops[top.take], &h.Ops[later.take]
	term := c.Output.Token
	if term == prev.Output.Token && top.give >= 0 {
		if g := &h.Ops[top.give]; g.Kind == KindResign && g.Outcome == OutcomeOK {
			rep.violation(ViolationTermRegression, []*Operation{prev, g, c},
				"%s became leader of election %s at %s with term %d again: the leader key of term %d, won by %s at %s, "+
					"was never deleted, though %s resigned at %s and was told it had",
				later.client, key, fmtTime(later.start), term, term, top.client, fmtTime(top.start), top.client, fmtTime(g.Call))
			return
		}
	}
	rep.violation(ViolationTermRegression, []*Operation{prev, c},
		"%s became leader of election %s at %s with term %d, but %s had become leader at %s with term %d",
		later.client, key, fmtTime(later.start), term, top.client, fmtTime(top.start), prev.Output.Token)
}
