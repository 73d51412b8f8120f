package scenarios

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/seed"
)

// The guide keeps the draws that reached behaviour not seen before and
// hands them back to be mutated. Behaviour is a set of features read from
// a run's history:
//
//   - for each fault, the kinds of the operations in flight as it landed
//     ("pause|inflight|acquire"), and the kinds and outcomes of those that
//     began while it was in force ("pause|during|guarded-write|failed");
//   - near misses: a hold that began within 20ms of the previous one's end
//     ("near|handoff"), a hold that lasted past its TTL ("near|past-ttl");
//   - every violation, by judge and kind.
//
// A draw that adds a feature is kept. Half the draws after the first
// keeper mutate a kept draw, the most recently kept ones more often.

// guide is the corpus and the features seen.
type guide struct {
	seen   map[string]bool
	corpus []draw
}

func newGuide() *guide { return &guide{seen: map[string]bool{}} }

// learn adds r's features and keeps its draw if any was new.
func (g *guide) learn(r ExploreRun) bool {
	fresh := false
	for _, f := range r.Features {
		if !g.seen[f] {
			g.seen[f] = true
			fresh = true
		}
	}
	if fresh {
		g.corpus = append(g.corpus, r.Draw)
	}
	return fresh
}

// parent returns a kept draw to mutate, half the time.
func (g *guide) parent(rng *rand.Rand) (draw, bool) {
	if len(g.corpus) == 0 || rng.IntN(2) == 0 {
		return draw{}, false
	}
	// The newer half of the corpus is drawn twice as often.
	n := len(g.corpus)
	i := rng.IntN(n + n/2)
	if i >= n {
		i = n - 1 - (i-n)%max(n/2, 1)
	}
	return g.corpus[i], true
}

// mutate changes one or two dimensions of x: a fault redrawn, moved to
// another phase, made longer or shorter, added or dropped; the workload's
// timing; the network.
func (d drawer) mutate(rng *rand.Rand, x draw) draw {
	x.Faults = slices.Clone(x.Faults)
	x.LinkDelay = slices.Clone(x.LinkDelay)
	for range 1 + rng.IntN(2) {
		if len(x.Faults) == 0 {
			x.Faults = append(x.Faults, d.drawFault(rng, x))
		}
		i := rng.IntN(len(x.Faults))
		switch rng.IntN(7) {
		case 0:
			x.Faults[i] = d.drawFault(rng, x)
		case 1:
			if a := x.Faults[i].Action; a != "revoke-lease" && a != "delete" && a != "put" {
				x.Faults[i].Phase = pick(rng, phases...)
			}
		case 2:
			x.Faults[i].For = Duration(float64(x.Faults[i].For) * pick(rng, 0.5, 0.9, 1.1, 2))
		case 3:
			if len(x.Faults) < d.space.MaxFaults {
				x.Faults = append(x.Faults, d.drawFault(rng, x))
			} else if len(x.Faults) > d.space.MinFaults {
				x.Faults = slices.Delete(x.Faults, i, i+1)
			}
		case 4:
			d.drawShape(rng, &x)
		case 5:
			x.Latency = min(Duration(pick(rng, 0, time.Millisecond, 2*time.Millisecond, 5*time.Millisecond, 10*time.Millisecond)), Duration(d.space.MaxLatency))
		case 6:
			x.Faults[i].At = Duration(300*time.Millisecond + time.Duration(rng.Int64N(int64(x.Duration.D()/2))))
		}
	}
	// An expiry phase is only for the faults drawFault gives it to.
	for i := range x.Faults {
		f := &x.Faults[i]
		if ef, err := exploreFaultOf(f.Action); err == nil && f.Phase == PhaseExpiry && (ef.instant || ef.aim == aimNone) {
			f.Phase = PhaseAcquire
		}
		if ef, err := exploreFaultOf(f.Action); err == nil && ef.instant {
			f.For = 0
		} else if f.For == 0 {
			f.For = x.TTL
		}
	}
	x.Seed = seed.Seed(rng.Uint64())
	d.fit(&x)
	return x
}

// nearHandoff is how close one hold's start to the previous one's end
// counts as a near miss.
const nearHandoff = 20 * time.Millisecond

// features reads the behaviour res reached (see guide).
func features(res *Result, x draw) []string {
	h := res.History()
	set := map[string]bool{}
	for _, f := range h.Faults {
		action := f.Action
		if action == "" || action == "delay" && f.Start == 0 || action == "compact" && x.CompactEvery > 0 && !drawnAction(x, "compact") {
			continue // the network's standing delays and the regular compactions are the shape, not faults
		}
		for i := range h.Ops {
			op := &h.Ops[i]
			if op.Call <= f.Start && f.Start <= op.End() {
				set[action+"|inflight|"+string(op.Kind)] = true
			}
			end := f.End
			if !f.Healed || end < f.Start {
				end = f.Start
			}
			if f.Start <= op.Call && op.Call <= end {
				set[action+"|during|"+string(op.Kind)+"|"+string(op.Outcome)] = true
			}
		}
	}
	// Holds: an ok start kind's return to the same client's next end kind.
	var lastEnd time.Duration = -1
	for i := range h.Ops {
		op := &h.Ops[i]
		switch op.Kind {
		case checker.KindAcquire, checker.KindCampaign:
			if op.Outcome == checker.OutcomeOK && lastEnd >= 0 && op.Return-lastEnd < nearHandoff {
				set["near|handoff"] = true
			}
		case checker.KindRelease, checker.KindResign:
			if op.Outcome == checker.OutcomeOK {
				lastEnd = op.Return
			}
		case checker.KindLost:
			set["near|lost"] = true
		}
	}
	for _, c := range res.Checks {
		for _, v := range c.Violations {
			set[fmt.Sprintf("violation|%s|%s", c.Checker, v.Kind)] = true
		}
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// drawnAction reports whether x draws a fault of action.
func drawnAction(x draw, action string) bool {
	return slices.ContainsFunc(x.Faults, func(f drawnFault) bool { return f.Action == action })
}
