package scenarios

import (
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
)

// FamilyRWMutex names the family.
const FamilyRWMutex = recipe.RWMutex

// rwmutexFamily: readers and writers take a read-write lock.
var rwmutexFamily = family{
	name:     FamilyRWMutex,
	key:      "RW",
	knobs:    []string{"readers"},
	checkers: []checker.Name{checker.CheckerRWExclusion, checker.CheckerLiveness, checker.CheckerKeysOnLeases},
	command:  rwmutexCommand,
	slots:    []slot{slotOf(FamilyRWMutex, "WithRWMutex", func(w *Workload) **rwmutex.Recipe { return &w.RWMutex }, rwmutex.Lookup)},
	run:      (*world).rwmutexWorkload,
	safety:   []string{"RWMutexSafety"},
	gallery:  rwmutexScenarios,
}

// WithRWMutex is WithLock for a read-write lock recipe.
func (s Scenario) WithRWMutex(r rwmutex.Recipe) Scenario {
	s.Workload.RWMutex = &r
	return s.reuse(r.Name, r.Expect, false)
}

// rwLatency is the network latency of every rwmutex run. etcd's recipes
// name their keys by time.Now().UnixNano(); on the virtual clock a
// network without latency answers at the instant it is asked, two clients
// then make the same key name, and the recipe retries the same name at
// the same instant for ever.
const rwLatency = Duration(time.Millisecond)

// rwBase is a rwmutex scenario of recipe r: 3 members, the given workload
// with its family and recipe filled in, seed 1.
func rwBase(r rwmutex.Recipe, w Workload) Scenario {
	w.Family, w.Recipe = FamilyRWMutex, r.Name
	if w.TTL == 0 {
		w.TTL = Duration(2 * time.Second)
	}
	s := Scenario{Cluster: Cluster{Members: 3, Latency: rwLatency}, Workload: w, Seed: 1}
	if !slices.ContainsFunc(append(rwmutex.Recipes(), rwmutex.UpstreamRecipes()...), func(x rwmutex.Recipe) bool { return x.Name == r.Name }) {
		rr := r
		s.Workload.RWMutex = &rr
	}
	return s.recordCommand()
}

// revokeWaiter is the schedule of etcd #16221: two writers take turns;
// when c1 has done its first write and is about to unlock, c2 — waiting
// behind it, whichever of them went first — has its session's lease
// revoked. Think is short, so c1 queues again at once behind c2's wait.
func revokeWaiter() (Workload, *faults.Timeline) {
	w := Workload{Clients: 2, Hold: Duration(time.Second), Think: Duration(time.Millisecond), Duration: Duration(6 * time.Second)}
	return w, &faults.Timeline{Triggers: []faults.Trigger{
		faults.On(faults.Match{Kind: checker.KindGuardedWrite, Client: "c1", Key: "RW"}, 0, faults.RevokeLease(faults.Client("c2"))),
	}}
}

// isolateReader cuts the reader c1 off from the cluster for 4s as it
// first takes the read lock, past its 2s TTL, while the writer c2 waits or
// soon does: c1's lease expires on the server and c2 takes the lock. c1
// holds for 3s, so a reader that ignores Done is still reading then.
func isolateReader() (Workload, *faults.Timeline) {
	w := Workload{Clients: 2, Readers: 1, Hold: Duration(3 * time.Second), Think: Duration(time.Millisecond), Duration: Duration(10 * time.Second)}
	return w, &faults.Timeline{Triggers: []faults.Trigger{
		faults.On(faults.Match{Kind: checker.KindRLock, Client: "c1", Key: "RW"}, 4*time.Second, faults.Isolate(faults.Client("c1"))),
	}}
}

// RWMutexSafety returns the scenarios a correct read-write lock recipe —
// one of ours or a user's own — must pass, each judged by RWExclusion and
// Liveness: two readers and two writers under the standard fault mix and
// through two leader kills; a waiting writer's session revoked (etcd
// #16221's schedule); a reader cut off past its TTL while a writer waits;
// and rwPatience's callers that give up behind a holder, holds four TTLs
// long and a writer crashed in the middle of its hold.
func RWMutexSafety(r rwmutex.Recipe) []Scenario {
	mixed := Workload{Clients: 4, Readers: 2, Hold: Duration(200 * time.Millisecond), Duration: Duration(12 * time.Second)}
	// Liveness gets 5s after the last heal, as for a lock: a waiter whose
	// watch was compacted away may sit out its patience.
	checks := []Check{{Name: checker.CheckerRWExclusion}, {Name: checker.CheckerLiveness, Bound: Duration(5 * time.Second)}}

	mix := rwBase(r, mixed)
	mix.Name = "rwmutex/" + r.Name + "/standard-mix"
	mix.Description = r.Name + ": two readers and two writers under a leader kill, a minority partition, a client cut off, a leader storm and a compaction"
	mix.Faults.Timeline = standardMix()
	mix.Checkers = checks

	kill := rwBase(r, mixed)
	kill.Name = "rwmutex/" + r.Name + "/leader-kill"
	kill.Description = r.Name + ": two readers and two writers through two leader kills"
	kill.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{
		faults.At(time.Second, time.Second, faults.Kill(faults.Leader)),
		faults.At(4*time.Second, time.Second, faults.Kill(faults.Leader)),
	}}
	kill.Checkers = checks

	w, tl := revokeWaiter()
	revoke := rwBase(r, w)
	revoke.Name = "rwmutex/" + r.Name + "/revoke-waiter"
	revoke.Description = r.Name + ": a waiting writer's session is revoked as the holder lets go; the waiter must not take the lock"
	revoke.Faults.Timeline = tl
	revoke.Checkers = checks

	w, tl = isolateReader()
	iso := rwBase(r, w)
	iso.Name = "rwmutex/" + r.Name + "/isolate-reader"
	iso.Description = r.Name + ": a reader cut off past its TTL stops reading before the waiting writer takes the lock"
	iso.Faults.Timeline = tl
	iso.Checkers = checks
	return judgeKeys(append([]Scenario{mix, kill, revoke, iso}, rwPatience(r)...))
}

// rwmutexScenarios are the family's scenarios: every correct recipe of
// the gallery under RWMutexSafety, then each broken one under the
// schedule that exposes it.
func rwmutexScenarios() []Scenario {
	var out []Scenario
	for _, r := range rwmutex.Recipes() {
		if !r.Broken {
			out = append(out, RWMutexSafety(r)...)
		}
	}
	r, err := rwmutex.Lookup("reader-ignores-done")
	if err != nil {
		panic(err)
	}
	w, tl := isolateReader()
	s := rwBase(r, w)
	s.Name = "rwmutex/reader-ignores-done/isolate-reader"
	s.Description = "a reader that ignores Done, cut off past its TTL, reads on while the writer that took its place writes"
	s.Faults.Timeline = tl
	s.Checkers = []Check{{Name: checker.CheckerRWExclusion}}
	s.Expect = r.Expect
	return append(out, s)
}
