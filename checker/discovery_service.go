package checker

import (
	"cmp"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// serviceRun is DiscoveryConvergence's judgement of one service, built up
// phase by phase (see service).
type serviceRun struct {
	*discoveryRun
	key string
	// Set by gather.
	registry map[string][]int // endpoint → its registers and deregisters, by call
	names    []string         // the endpoints ever registered or deregistered, sorted
	resolves []int            // the resolver reports with outcome ok
	rpcs     []int
	// Set by buildEndpoints.
	eps     map[string]*endpoint
	changes []statusPoint // every endpoint's definite changes, by time
}

// service judges the resolvers of the service key, whose operations ops
// are (by call), with the backends' crashes: it gathers the operations,
// replays each endpoint's registry history, judges each resolver report
// against it, measures how long resolvers took to agree with each change,
// counts the RPCs sent to backends that were gone, and adds its counts to
// the run's metrics.
func (d *discoveryRun) service(key string, ops []int, crashes map[string][]int) {
	s := &serviceRun{discoveryRun: d, key: key}
	s.gather(ops)
	s.buildEndpoints(crashes)
	judged, stale := s.judgeReports()
	resolvers, byResolver := s.groupByResolver()
	times, unconverged := s.measureStaleness(resolvers, byResolver)
	toDead, toDereg := s.countGoneRPCs()
	d.m["endpoints"] += float64(len(s.names))
	d.m["changes"] += float64(len(times))
	d.m["resolver_reports"] += float64(len(s.resolves))
	d.m["judged_reports"] += float64(judged)
	d.m["stale_reports"] += float64(stale)
	d.m["unconverged_changes"] += float64(unconverged)
	d.m["rpcs"] += float64(len(s.rpcs))
	d.m["rpc_to_dead"] += float64(toDead)
	d.m["rpc_to_deregistered"] += float64(toDereg)
}

// gather sorts the service's operations by what they are about: each
// endpoint's registers and deregisters, the resolver reports with outcome
// ok, and the RPCs.
func (s *serviceRun) gather(ops []int) {
	h := s.h
	s.registry = map[string][]int{}
	for _, i := range ops {
		op := &h.Ops[i]
		switch op.Kind {
		case KindRegister, KindDeregister:
			if _, ok := s.registry[op.Input.Value]; !ok {
				s.names = append(s.names, op.Input.Value)
			}
			s.registry[op.Input.Value] = append(s.registry[op.Input.Value], i)
		case KindResolve:
			if op.Outcome == OutcomeOK {
				s.resolves = append(s.resolves, i)
			}
		case KindRPC:
			s.rpcs = append(s.rpcs, i)
		}
	}
	slices.Sort(s.names)
}

// buildEndpoints replays each endpoint's history (see buildEndpoint) and
// lists every definite change of the registered set, by time.
func (s *serviceRun) buildEndpoints(crashes map[string][]int) {
	s.eps = make(map[string]*endpoint, len(s.names))
	for _, n := range s.names {
		e := s.buildEndpoint(n, s.registry[n], crashes)
		s.eps[n] = e
		s.changes = append(s.changes, e.points...)
	}
	slices.SortStableFunc(s.changes, func(a, b statusPoint) int { return cmp.Compare(a.at, b.at) })
}

// consistent reports whether a resolver's set could be right for a
// report made during [from, to], and if not, why not.
func (s *serviceRun) consistent(set map[string]bool, from, to time.Duration) (bool, string) {
	for _, n := range slices.Sorted(maps.Keys(set)) { // sorted: the first unknown one is named
		if s.eps[n] == nil {
			return false, sprintf("%s was never registered", showAddr(n))
		}
	}
	var missing, extra []string
	for _, n := range s.names {
		e := s.eps[n]
		if e.uncertain(from, to) {
			continue
		}
		st, _ := e.status(from)
		switch {
		case st == statusIn && !set[n]:
			missing = append(missing, n)
		case st == statusOut && set[n]:
			extra = append(extra, n)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return true, ""
	}
	var why []string
	if len(missing) > 0 {
		why = append(why, "missing "+strings.Join(showAddrs(missing), ", "))
	}
	if len(extra) > 0 {
		why = append(why, "still listing "+strings.Join(showAddrs(extra), ", "))
	}
	return false, strings.Join(why, "; ")
}

// live lists the endpoints registered at t.
func (s *serviceRun) live(t time.Duration) []string {
	var in []string
	for _, n := range s.names {
		if st, _ := s.eps[n].status(t); st == statusIn {
			in = append(in, n)
		}
	}
	return in
}

// reportSet is the set of endpoints a resolver report lists.
func reportSet(o *Operation) map[string]bool {
	set := make(map[string]bool, len(o.Output.Endpoints))
	for _, e := range o.Output.Endpoints {
		set[e] = true
	}
	return set
}

// judgeReports judges each resolver report that came after the registry
// had been stable for the bound, recording a violation for each that was
// wrong, and returns how many it judged and how many reports that came
// sooner were stale.
func (s *serviceRun) judgeReports() (judged, stale int) {
	h := s.h
	for _, i := range s.resolves {
		o := &h.Ops[i]
		set := reportSet(o)
		j := sort.Search(len(s.changes), func(j int) bool { return s.changes[j].at > o.Call })
		last := time.Duration(0)
		var lastOp *Operation
		lastCrash := false
		if j > 0 {
			last, lastOp, lastCrash = s.changes[j-1].at, &h.Ops[s.changes[j-1].op], s.changes[j-1].crash
		}
		if j < len(s.changes) && s.changes[j].at <= o.Return {
			continue // the set changed while the resolver was asked
		}
		ok, why := s.consistent(set, o.Call, o.Return)
		if o.Call < addTime(last, s.bound) {
			if !ok {
				stale++
			}
			continue
		}
		judged++
		if !ok {
			since := "since the start of the run"
			switch {
			case lastOp != nil && lastCrash:
				since = sprintf("%s after the last change (%s's lease ran out at %s, a TTL after it crashed at %s)",
					o.Call-last, lastOp.Client, fmtTime(last), fmtTime(lastOp.Call))
			case lastOp != nil:
				since = sprintf("%s after the last change (%s %s %s at %s)",
					o.Call-last, lastOp.Client, lastOp.Kind, lastOp.Input.Value, fmtTime(last))
			}
			rep := []*Operation{o}
			if lastOp != nil {
				rep = append(rep, lastOp)
			}
			s.rep.violation(ViolationNotConverged, rep, "resolver %s reported %v for service %s at %s, %s, beyond the bound of %s: %s (registered: %v)",
				o.Client, showAddrs(o.Output.Endpoints), s.key, fmtTime(o.Call), since, s.bound, why, showAddrs(s.live(o.Call)))
		}
	}
	return judged, stale
}

// groupByResolver lists the resolvers in the order of their first report,
// and each one's reports, by call.
func (s *serviceRun) groupByResolver() (resolvers []string, byResolver map[string][]int) {
	byResolver = map[string][]int{}
	for _, i := range s.resolves {
		o := &s.h.Ops[i]
		if _, ok := byResolver[o.Client]; !ok {
			resolvers = append(resolvers, o.Client)
		}
		byResolver[o.Client] = append(byResolver[o.Client], i)
	}
	return resolvers, byResolver
}

// measureStaleness measures, from each change of the registered set to
// each resolver's first report that agrees with it before the next change,
// how long the resolver took (the run's "staleness" distribution). It
// returns the times at which the set changed and how many times a
// resolver, sampled between two changes, never agreed.
func (s *serviceRun) measureStaleness(resolvers []string, byResolver map[string][]int) (times []time.Duration, unconverged int) {
	h := s.h
	for _, c := range s.changes {
		if len(times) == 0 || times[len(times)-1] != c.at {
			times = append(times, c.at)
		}
	}
	for _, r := range resolvers {
		reports := byResolver[r] // by call
		for ti, t := range times {
			next := Infinity
			if ti+1 < len(times) {
				next = times[ti+1]
			}
			k := sort.Search(len(reports), func(k int) bool { return h.Ops[reports[k]].Call >= t })
			if k == len(reports) || h.Ops[reports[k]].Call >= next {
				continue // not sampled in between: nothing to measure
			}
			converged := false
			for ; k < len(reports) && h.Ops[reports[k]].Call < next; k++ {
				o := &h.Ops[reports[k]]
				if ok, _ := s.consistent(reportSet(o), o.Call, o.Return); ok {
					s.staleness = append(s.staleness, o.Return-t)
					converged = true
					break
				}
			}
			if !converged {
				unconverged++
			}
		}
	}
	return times, unconverged
}

// countGoneRPCs counts the RPCs sent to an endpoint whose backend had
// crashed (toDead) or had been deregistered (toDereg) before the call.
func (s *serviceRun) countGoneRPCs() (toDead, toDereg int) {
	for _, i := range s.rpcs {
		op := &s.h.Ops[i]
		e := s.eps[op.Input.Value]
		if e == nil {
			continue
		}
		for _, g := range e.gone {
			if g.from <= op.Call && op.Call < g.to {
				if g.dead {
					toDead++
				} else {
					toDereg++
				}
				break
			}
		}
	}
	return toDead, toDereg
}

// showAddr prints an endpoint as a person reads it: an empty one as "",
// so that a sentence never names nothing.
func showAddr(a string) string {
	if a == "" {
		return `""`
	}
	return a
}

// showAddrs is showAddr of each of as.
func showAddrs(as []string) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = showAddr(a)
	}
	return out
}
