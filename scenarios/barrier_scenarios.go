package scenarios

import (
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/recipes/barrier"
)

// FamilyBarrier names the family.
const FamilyBarrier = recipe.Barrier

// barrierFamily: processes enter and leave etcd's double barrier.
var barrierFamily = family{
	name:     FamilyBarrier,
	key:      "B",
	knobs:    []string{"stagger"},
	checkers: []checker.Name{checker.CheckerBarrierSafety},
	command:  barrierCommand,
	slots:    []slot{slotOf(FamilyBarrier, "WithBarrier", func(w *Workload) **barrier.Recipe { return &w.Barrier }, barrier.Lookup)},
	run:      (*world).barrierWorkload,
	safety:   []string{"BarrierSafety"},
	gallery:  barrierScenarios,
}

// WithBarrier is WithLock for a double-barrier recipe.
func (s Scenario) WithBarrier(r barrier.Recipe) Scenario {
	s.Workload.Barrier = &r
	return s.reuse(r.Name, r.Expect, false)
}

// barrierLatency is the network latency of every barrier run: etcd's
// recipes name their keys by time.Now().UnixNano() (see rwLatency).
const barrierLatency = Duration(time.Millisecond)

// barrierBase is a barrier scenario of recipe r: 3 members, the given
// workload with its family and recipe filled in, a TTL of 2 s, BarrierSafety,
// seed 1.
func barrierBase(r barrier.Recipe, w Workload) Scenario {
	w.Family, w.Recipe = FamilyBarrier, r.Name
	if w.TTL == 0 {
		w.TTL = Duration(2 * time.Second)
	}
	s := Scenario{Cluster: Cluster{Members: 3, Latency: barrierLatency}, Workload: w, Seed: 1,
		Checkers: []Check{{Name: checker.CheckerBarrierSafety}}}
	if !slices.ContainsFunc(append(barrier.Recipes(), barrier.UpstreamRecipes()...), func(x barrier.Recipe) bool { return x.Name == r.Name }) {
		rr := r
		s.Workload.Barrier = &rr
	}
	return s.recordCommand()
}

// barrierRounds is four processes going through the barrier round after
// round, each working 50 ms inside and thinking 20 ms or so outside.
func barrierRounds(d time.Duration) Workload {
	return Workload{Clients: 4, Hold: Duration(50 * time.Millisecond), Think: Duration(20 * time.Millisecond),
		ThinkJitter: Duration(20 * time.Millisecond), Duration: Duration(d)}
}

// BarrierSafety returns the scenarios a correct double-barrier recipe —
// one of ours or a user's own — must pass, judged by BarrierSafety: four
// processes going through it round after round under the standard fault
// mix, and while one of them is cut off past its TTL; and
// barrierPatience's processes that give up Enter while the others are on
// their way, rounds four TTLs long, and a process crashed inside.
func BarrierSafety(r barrier.Recipe) []Scenario {
	mix := barrierBase(r, barrierRounds(8*time.Second))
	mix.Name = "barrier/" + r.Name + "/standard-mix"
	mix.Description = r.Name + ": four processes through the barrier round after round under a leader kill, a minority partition, a client cut off, a leader storm and a compaction"
	mix.Faults.Timeline = standardMix()

	iso := barrierBase(r, barrierRounds(6*time.Second))
	iso.Name = "barrier/" + r.Name + "/isolate-process"
	iso.Description = r.Name + ": one process is cut off for 3 s, past its 2 s TTL, while the others wait for it inside or outside the barrier"
	iso.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{
		faults.At(time.Second, 3*time.Second, faults.Isolate(faults.Client("c2"))),
	}}
	return append([]Scenario{mix, iso}, barrierPatience(r)...)
}

// barrierScenarios are the family's scenarios: every correct recipe of
// the gallery under BarrierSafety, then each broken one under the
// schedule that exposes it.
func barrierScenarios() []Scenario {
	var out []Scenario
	for _, r := range barrier.Recipes() {
		if !r.Broken {
			out = append(out, BarrierSafety(r)...)
		}
	}
	r, err := barrier.Lookup("short-count")
	if err != nil {
		panic(err)
	}
	s := barrierBase(r, barrierRounds(3*time.Second))
	s.Name = "barrier/short-count/rounds"
	s.Description = "each process counts the others, not the group: the second to last to arrive opens the barrier, and three walk in before the fourth has come"
	s.Expect = r.Expect
	return append(out, s)
}
