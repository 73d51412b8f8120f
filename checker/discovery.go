package checker

import (
	"cmp"
	"slices"
	"sort"
	"time"
)

// defaultDiscoveryBound is how long resolvers may lag when
// DiscoveryOptions leaves Bound zero.
const defaultDiscoveryBound = 2 * time.Second

// DiscoveryOptions configures DiscoveryConvergence. The zero value takes
// the TTL from the history and allows resolvers 2 s.
type DiscoveryOptions struct {
	// TTL is the backends' session TTL: a crashed backend's endpoints
	// leave the registry within it. 0 means History.SessionTTL, or 60 s if
	// that is 0 too.
	TTL time.Duration
	// Bound is how long after a change of the registered set a resolver
	// may still report the old set. 0 means 2 s.
	Bound time.Duration
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// DiscoveryConvergence checks that resolvers converge on the live
// registered endpoints, per service name Key.
//
// It reads:
//   - register and deregister (Input.Value, the endpoint; Client, the
//     backend): an ok one changes the registered set at its return; while
//     it is in flight, and from the call of one of unknown outcome until the
//     endpoint's next definite change, the endpoint may be in or out.
//   - crash of a backend: its endpoints may be in or out from the crash,
//     and are out once the TTL has passed (their lease expired), unless
//     registered again meanwhile.
//   - faults aimed at a live backend (History.Faults whose Targets name it,
//     a crash aside: a lease revoked, the backend cut off or paused): its
//     endpoints may be in
//     or out from the fault's start until its heal plus the TTL plus the
//     bound — time for its registrar to register again and for resolvers
//     to see it — and must then be as its last register or deregister left
//     them: a registrar that never registers again is caught.
//   - resolve with outcome ok (Output.Endpoints, the resolver's set at
//     that time): once the registered set has not changed for the bound, a
//     resolver's set must equal it (endpoints that may be in or out aside)
//     until it changes again. Reports that differ sooner are counted as
//     stale; the time from each change to each resolver's first report
//     that agrees with it (an upper bound, set by how often resolvers were
//     sampled) is the "staleness" distribution.
//   - rpc (Input.Value, the endpoint it was sent to): counted when the
//     endpoint's backend had crashed (rpc_to_dead), or it had been
//     deregistered (rpc_to_deregistered), before the call. These are
//     counts, not violations.
//
// Invalid: a register, deregister or rpc without an endpoint, an operation
// without a service name, and whatever History.Validate rejects. With no
// resolver report that could be judged the verdict is unknown.
func DiscoveryConvergence(h History, opts DiscoveryOptions) Result {
	rep := newReport(CheckerDiscoveryConvergence, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	ttl, _ := LivenessOptions{TTL: opts.TTL}.resolve(&h)
	bound := opts.Bound
	if bound <= 0 {
		bound = discoveryBound(ttl)
	}
	for i := range h.Ops {
		op := &h.Ops[i]
		switch op.Kind {
		case KindRegister, KindDeregister, KindRPC:
			if op.Input.Value == "" {
				return rep.invalid(invalidOp(op, "%s without an endpoint", op.Kind))
			}
			fallthrough
		case KindResolve:
			if op.Key == "" {
				return rep.invalid(invalidOp(op, "%s without a service name", op.Kind))
			}
		}
	}
	crashes := map[string][]int{}
	for i := range h.Ops {
		if h.Ops[i].Kind == KindCrash {
			crashes[h.Ops[i].Client] = append(crashes[h.Ops[i].Client], i)
		}
	}
	keys, groups := groupByKey(&h, KindRegister, KindDeregister, KindResolve, KindRPC)
	d := discoveryRun{h: &h, rep: rep, ttl: ttl, bound: bound, m: rep.res.Metrics}
	for _, k := range keys {
		d.service(k, groups[k], crashes)
	}
	if len(d.staleness) > 0 {
		rep.res.Distributions = map[string]Distribution{"staleness": newDistribution(d.staleness)}
	}
	d.m["services"] = float64(len(keys))
	summary := sprintf("%s of %s judged (%d stale within the bound), %d RPCs",
		plural(int(d.m["judged_reports"]), "resolver report"), plural(len(keys), "service"),
		int(d.m["stale_reports"]), int(d.m["rpcs"]))
	undecided := ""
	if d.m["judged_reports"] == 0 {
		undecided = "no resolver report came after the registry had been stable for the bound"
	}
	return rep.done(summary, undecided)
}

type discoveryRun struct {
	h          *History
	rep        *report
	ttl, bound time.Duration
	m          map[string]float64
	staleness  []time.Duration
}

// endpointStatus is whether an endpoint is registered.
type endpointStatus int8

const (
	statusOut endpointStatus = iota
	statusIn
)

// statusPoint is a definite change of an endpoint's status.
type statusPoint struct {
	at     time.Duration
	status endpointStatus
	op     int  // the register, deregister or crash behind it
	crash  bool // the endpoint expired after its backend crashed
}

// window is a time during which an endpoint may be in or out.
type window struct{ from, to time.Duration }

// endpoint is one endpoint's history.
type endpoint struct {
	name    string
	points  []statusPoint // by time
	windows []window
	gone    []goneSpan // when RPCs to it reach a dead or deregistered backend
}

type goneSpan struct {
	from, to time.Duration
	dead     bool
}

func (e *endpoint) status(t time.Duration) (endpointStatus, int) {
	i := sort.Search(len(e.points), func(i int) bool { return e.points[i].at > t }) - 1
	if i < 0 {
		return statusOut, -1
	}
	return e.points[i].status, i
}

func (e *endpoint) uncertain(from, to time.Duration) bool {
	for _, w := range e.windows {
		if w.from <= to && from < w.to {
			return true
		}
	}
	return false
}

// buildEndpoint replays one endpoint's registry operations (ops, by call)
// and its backends' crashes.
func (d *discoveryRun) buildEndpoint(name string, ops []int, crashes map[string][]int) *endpoint {
	h := d.h
	e := &endpoint{name: name}
	type step struct {
		idx   int
		crash bool
	}
	var steps []step
	owners := map[string]bool{}
	for _, i := range ops {
		steps = append(steps, step{idx: i})
		if h.Ops[i].Kind == KindRegister {
			owners[h.Ops[i].Client] = true
		}
	}
	for c := range owners {
		for _, i := range crashes[c] {
			steps = append(steps, step{idx: i, crash: true})
		}
	}
	slices.SortFunc(steps, func(a, b step) int { return byCall(h)(a.idx, b.idx) })
	status := statusOut
	openFrom := time.Duration(-1) // start of an open-ended uncertain window
	goneFrom, goneDead := time.Duration(-1), false
	point := func(p statusPoint) {
		if openFrom >= 0 {
			e.windows = append(e.windows, window{openFrom, p.at})
			openFrom = -1
		}
		e.points = append(e.points, p)
	}
	endGone := func(at time.Duration) {
		if goneFrom >= 0 {
			e.gone = append(e.gone, goneSpan{goneFrom, at, goneDead})
			goneFrom = -1
		}
	}
	for n, s := range steps {
		op := &h.Ops[s.idx]
		if s.crash {
			if status == statusOut && openFrom < 0 {
				continue
			}
			if goneFrom < 0 {
				goneFrom, goneDead = op.Call, true
			}
			expiry := addTime(op.Call, d.ttl)
			next := Infinity
			for _, later := range steps[n+1:] {
				if !later.crash {
					next = h.Ops[later.idx].Call
					break
				}
			}
			if next < expiry {
				// Registered again before the lease ran out.
				if openFrom < 0 {
					openFrom = op.Call
				}
				continue
			}
			if openFrom < 0 {
				openFrom = op.Call
			}
			point(statusPoint{at: expiry, status: statusOut, op: s.idx, crash: true})
			status = statusOut
			continue
		}
		switch op.Outcome {
		case OutcomeFailed:
			continue
		case OutcomeUnknown:
			if openFrom < 0 {
				openFrom = op.Call
			}
			if op.Kind == KindRegister {
				endGone(op.Call)
			}
			continue
		}
		if op.Kind == KindRegister {
			endGone(op.Call)
			if openFrom < 0 {
				openFrom = op.Call
			}
			point(statusPoint{at: op.Return, status: statusIn, op: s.idx})
			status = statusIn
		} else {
			if openFrom < 0 {
				openFrom = op.Call
			}
			point(statusPoint{at: op.Return, status: statusOut, op: s.idx})
			status = statusOut
			if goneFrom < 0 {
				goneFrom, goneDead = op.Return, false
			}
		}
	}
	if openFrom >= 0 {
		e.windows = append(e.windows, window{openFrom, Infinity})
	}
	endGone(Infinity)
	for c := range owners {
		e.windows = append(e.windows, d.faultWindows(c)...)
	}
	slices.SortStableFunc(e.points, func(a, b statusPoint) int { return cmp.Compare(a.at, b.at) })
	return e
}

// faultWindows are the times a fault aimed at backend c leaves its
// endpoints in doubt: a backend cut off, paused or stripped of its lease
// may lose its registration through no fault of its registrar, which then
// needs until the lease would have run out to notice and register again,
// and resolvers the bound to see it. So from the fault's start until its
// heal plus the TTL plus the bound, its endpoints may be in or out; after
// that they must be back.
func (d *discoveryRun) faultWindows(c string) []window {
	var out []window
	for _, f := range d.h.Faults {
		if !slices.Contains(f.Targets, c) || f.Err != "" && !f.Healed && f.End == f.Start || f.NotApplicable != "" {
			continue // not aimed at c, or never in force
		}
		if f.Action == "crash" {
			continue // the crash operation tells what a crash did; a restarted backend registers anew
		}
		end := Infinity
		if f.Healed {
			end = addTime(f.End, d.ttl+d.bound)
		}
		out = append(out, window{f.Start, end})
	}
	return out
}
