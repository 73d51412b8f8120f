package scenarios

import (
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/recipes/barrier"
)

// FamilyPlainBarrier is etcd's plain barrier (Hold, Release, Wait):
// a family of its own beside the double barrier's, as its recipes are
// registered apart (barrier.LookupPlain) and its workload is another.
const FamilyPlainBarrier = recipe.PlainBarrier

// plainBarrierFamily: a holder puts etcd's plain barrier up and takes it
// down while waiters wait at it.
var plainBarrierFamily = family{
	name:     FamilyPlainBarrier,
	key:      "B",
	knobs:    []string{"writes"},
	checkers: []checker.Name{checker.CheckerBarrierSafety},
	command:  plainBarrierCommand,
	slots:    []slot{slotOf("plain_barrier", "WithPlainBarrier", func(w *Workload) **barrier.PlainRecipe { return &w.PlainBarrier }, barrier.LookupPlain)},
	run:      (*world).plainBarrierWorkload,
	safety:   []string{"PlainBarrierSafety"},
	gallery:  plainBarrierScenarios,
}

// WithPlainBarrier is WithLock for a plain-barrier recipe.
func (s Scenario) WithPlainBarrier(r barrier.PlainRecipe) Scenario {
	s.Workload.PlainBarrier = &r
	return s.reuse(r.Name, r.Expect, false)
}

// plainBarrierBase is a plain-barrier scenario of recipe r: 3 members with
// the barrier family's latency, the given workload with its family and
// recipe filled in, BarrierSafety at its default bound (the TTL of 1 s +
// 2 s), seed 1. The patience, 5 s, is above the bound: a waiter that
// slept through a release waits past the bound before it gives up, and
// the holder leaves the barrier down that long after every third release.
func plainBarrierBase(r barrier.PlainRecipe, w Workload) Scenario {
	w.Family, w.Recipe = FamilyPlainBarrier, r.Name
	if w.Patience == 0 {
		w.Patience = Duration(5 * time.Second)
	}
	s := Scenario{Cluster: Cluster{Members: 3, Latency: barrierLatency}, Workload: w, Seed: 1,
		Checkers: []Check{{Name: checker.CheckerBarrierSafety}}}
	if !slices.ContainsFunc(append(barrier.PlainRecipes(), barrier.UpstreamPlainRecipes()...), func(x barrier.PlainRecipe) bool { return x.Name == r.Name }) {
		rr := r
		s.Workload.PlainBarrier = &rr
	}
	return s.recordCommand()
}

// plainBarrierRounds is a holder and two waiters: the holder keeps the
// barrier up for hold, writing its work three times, and the waiters wait
// with a think of 100 ms or so between waits.
func plainBarrierRounds(d, hold time.Duration) Workload {
	return Workload{Clients: 3, Hold: Duration(hold), Writes: 3, Think: Duration(100 * time.Millisecond),
		ThinkJitter: Duration(50 * time.Millisecond), Duration: Duration(d)}
}

// compactedWatch is a waiter's watch resumed past a compaction: the holder
// keeps the barrier up for 5 s, writing its work every half second. c2,
// which waits from the start, has its connections reset from 0.8 s to
// 2.2 s, and etcd compacts at 1.8 s, past the revision c2's watch began
// at. When c2 connects again its watch resumes from a revision that is
// gone, and etcd cancels it, with the barrier still up for seconds.
func compactedWatch() (Workload, *faults.Timeline) {
	w := plainBarrierRounds(7*time.Second, 5*time.Second)
	w.Writes = 10
	return w, &faults.Timeline{Steps: []faults.Step{
		faults.At(800*time.Millisecond, 1400*time.Millisecond, faults.Reset(faults.Client("c2"))),
		faults.At(1800*time.Millisecond, 0, faults.Compact()),
	}}
}

// PlainBarrierSafety returns the scenarios a correct plain-barrier recipe
// — one of ours or a user's own — must pass, judged by BarrierSafety: a
// holder and two waiters under the standard fault mix, and a waiter cut
// off while etcd compacts past the revision its watch began at; and
// plainBarrierPatience's waiters that give up while the barrier is up,
// and a barrier up for eight seconds at a time.
func PlainBarrierSafety(r barrier.PlainRecipe) []Scenario {
	mix := plainBarrierBase(r, plainBarrierRounds(8*time.Second, 300*time.Millisecond))
	mix.Name = "plain-barrier/" + r.Name + "/standard-mix"
	mix.Description = r.Name + ": a holder puts the barrier up and takes it down while two waiters wait at it, under a leader kill, a minority partition, the holder cut off, a leader storm and a compaction"
	mix.Faults.Timeline = standardMix()

	w, tl := compactedWatch()
	cw := plainBarrierBase(r, w)
	cw.Name = "plain-barrier/" + r.Name + "/compacted-watch"
	cw.Description = r.Name + ": a waiter's connections are reset while the holder works and etcd compacts; its watch resumes from a compacted revision, with the barrier still up"
	cw.Faults.Timeline = tl
	return append([]Scenario{mix, cw}, plainBarrierPatience(r)...)
}

// slowWaiter delays c2's links by 300 ms each way for its first 1.6 s.
// A read then takes three such trips from c2's call to its answer, and
// its watch one more to reach etcd: c2's first wait, called after a think
// of 50 to 150 ms, reads the barrier up by 0.75 s at latest and opens its
// watch after 1.25 s at earliest. The holder keeps the barrier up for 1 s,
// so its release falls in between, and then leaves it down for the
// patience.
func slowWaiter() (Workload, *faults.Timeline) {
	w := plainBarrierRounds(7*time.Second, time.Second)
	return w, &faults.Timeline{Steps: []faults.Step{
		faults.At(0, 1600*time.Millisecond, faults.Delay(faults.Client("c2"), 300*time.Millisecond, 0)),
	}}
}

// plainBarrierScenarios are the family's scenarios: every correct recipe
// of the gallery under PlainBarrierSafety, then each broken one under the
// schedule that exposes it.
func plainBarrierScenarios() []Scenario {
	var out []Scenario
	for _, r := range barrier.PlainRecipes() {
		if !r.Broken {
			out = append(out, PlainBarrierSafety(r)...)
		}
	}
	r, err := barrier.LookupPlain("unpinned-watch")
	if err != nil {
		panic(err)
	}
	w, tl := slowWaiter()
	s := plainBarrierBase(r, w)
	s.Name = "plain-barrier/unpinned-watch/slow-waiter"
	s.Description = "a slow waiter reads the barrier up, the holder takes it down, and only then does the waiter's watch begin, from now: it sleeps through the release while the barrier stays down"
	s.Faults.Timeline = tl
	s.Expect = r.Expect
	return append(out, s)
}
