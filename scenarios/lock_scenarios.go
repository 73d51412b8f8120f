package scenarios

import (
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/lock"
)

// FamilyLock names the family.
const FamilyLock = recipe.Lock

// lockFamily: clients take a lock and write to the resources it guards.
var lockFamily = family{
	name:     FamilyLock,
	key:      "L",
	knobs:    []string{"threads", "pinned", "owner_check", "writes"},
	defaults: lockDefaults,
	validate: lockValidate,
	keys: func(w Workload) []string {
		return []string{lock.DefaultPrefix + w.Key, dataKey(w.Key)}
	},
	workloadKeys: func(w Workload) []string { return []string{dataKey(w.Key)} },
	checkers:     []checker.Name{checker.CheckerMutualExclusion, checker.CheckerFencing, checker.CheckerLockLinearizable, checker.CheckerLiveness, checker.CheckerKeysOnLeases},
	slots:        []slot{slotOf(FamilyLock, "WithLock", func(w *Workload) **lock.Recipe { return &w.Lock }, lock.Lookup)},
	run:          (*world).lockWorkload,
	command:      lockCommand,
	minClients: func(w Workload) int {
		if w.Threads > 1 {
			return 1 // the threads of one client can overlap
		}
		return 2
	},
	safety:     []string{"LockSafety"},
	unfenced:   "mutual exclusion and lost updates judge it",
	serverSide: []string{"v3lock"},
	gallery:    lockScenarios,
}

// WithLock returns lock scenario s — a registered one, say a pitfall's —
// with a user's lock recipe r in its place, as a scenario of r's own: its
// name's recipe part becomes r's name, its expectation r's (a pass, or
// the violation r's entry names if r is a broken recipe), and its
// description says that r runs on s's schedule. The schedule, workload and
// checkers stay s's. Validate reports a scenario of another family.
func (s Scenario) WithLock(r lock.Recipe) Scenario {
	s.Workload.Lock = &r
	return s.reuse(r.Name, r.Expect, false)
}

func lockDefaults(w *Workload) {
	if w.Writes == 0 {
		w.Writes = 1
	}
	if w.Threads == 0 {
		w.Threads = 1
	}
	if w.OwnerCheck == "" {
		w.OwnerCheck = OwnerCheckDone
	}
}

func lockValidate(s Scenario, bad func(format string, args ...any)) {
	w := s.Workload
	// Clients out of range is reported by Validate, once.
	if w.Threads < 1 || w.Clients <= maxClients && w.Clients*w.Threads > maxClients {
		bad("workload.threads %d: want 1 to %d threads in all (%d clients)", w.Threads, maxClients, w.Clients)
	}
	if w.Writes < 1 || w.Writes > maxWrites {
		bad("workload.writes %d: want 1 to %d writes per hold", w.Writes, maxWrites)
	}
	if !slices.Contains([]string{OwnerCheckDone, OwnerCheckRead, OwnerCheckKeepAlive}, w.OwnerCheck) {
		bad("workload.owner_check %q: want %q, %q or %q", w.OwnerCheck, OwnerCheckDone, OwnerCheckRead, OwnerCheckKeepAlive)
	}
}

// lockScenarios are the lock family's registered scenarios: each correct
// recipe's LockSafety, then each broken recipe under the schedule that
// exposes it.
func lockScenarios() []Scenario {
	var out []Scenario
	for _, r := range lock.Recipes() {
		if !r.Broken {
			out = append(out, LockSafety(r)...)
		}
	}
	return append(out, lockPitfalls()...)
}

// LockSafety returns the scenarios a correct lock recipe — one of ours or
// a user's own — must pass: the standard fault mix with the first holder's
// lease revoked as it acquires, a holder paused between its last check and
// its write past its TTL, and a holder crashed without releasing, each
// judged by the guarded resource (a holder cut off or paused may believe it
// holds a lock its lease has lost: only the fencing token keeps the
// resource safe), by the tokens and by liveness; a leader kill judged in
// full, holds and linearizability included; and contention, two clients
// each asking for the lock just as the other releases it, judged in full
// and by a tight liveness bound — the schedule that exposes a waiter that
// can miss its wake-up. And, on a healthy cluster, judged in full: waiters
// that give up while the holder works (impatient-waiter), holds four TTLs
// long (long-hold), and a holder crashed in the middle of a hold of three
// seconds (crash-mid-hold).
//
// How a holder makes sure it still holds the lock before each write is
// Workload.OwnerCheck: OwnerCheckDone (the default) watches its Held's
// Done channel, so a recipe whose Done never closes writes on after its
// lease is gone; OwnerCheckRead asks the recipe instead (lock.Checker's
// Owned, a read in etcd, as a library with a Check method is meant to be
// used), and ignores Done. Set it on the scenarios LockSafety returns to
// run a recipe the way its library is used:
//
//	for _, s := range scenarios.LockSafety(mine) {
//		s.Workload.OwnerCheck = scenarios.OwnerCheckRead
//		scenarios.Test(t, s)
//	}
//
// A lock that hands out no fencing token by design declares it
// (lock.Unfenced): fencing is then left out as not applicable, and mutual
// exclusion and lost updates judge it. A Locker with a Close method is
// closed as its process crashes and as the run ends.
func LockSafety(r lock.Recipe) []Scenario {
	base := Scenario{
		Cluster:  Cluster{Members: 3},
		Workload: Workload{Family: FamilyLock, Recipe: r.Name, Clients: 3, Duration: Duration(12 * time.Second)},
		Seed:     1,
	}
	if r.Family == "" || !slices.ContainsFunc(lock.Recipes(), func(x lock.Recipe) bool { return x.Name == r.Name }) {
		rr := r
		base.Workload.Lock = &rr
	}
	base = base.recordCommand()
	// Liveness gets 5s after the last heal: a waiter whose watch was
	// compacted away may sit out its patience (2 TTLs) before it looks again.
	byResource := []Check{{Name: checker.CheckerMutualExclusion, ResourceOnly: true},
		{Name: checker.CheckerFencing}, {Name: checker.CheckerLiveness, Bound: Duration(5 * time.Second)}}

	mix := base
	mix.Name = "lock/" + r.Name + "/standard-mix"
	mix.Description = r.Name + " under a leader kill, a minority partition, a client cut off, a leader storm, a compaction, and the first holder's lease revoked"
	mix.Faults.Timeline = standardMix()
	// And the first holder's lease is revoked right after it acquires,
	// in its critical section: its successor takes over at once, and the
	// fenced counter must not lose an update.
	mix.Faults.Timeline.Triggers = append(mix.Faults.Timeline.Triggers,
		faults.On(faults.Match{Kind: checker.KindAcquire, Key: "L"}, 0, faults.RevokeLease(faults.LockHolder("L"))))
	mix.Checkers = byResource

	pause := base
	pause.Name = "lock/" + r.Name + "/pause-holder"
	pause.Description = r.Name + ": the holder is paused between its last check and its write, past its TTL; the token refuses its late write"
	pause.Faults.Timeline = pauseHolder(2500 * time.Millisecond)
	pause.Checkers = byResource
	// The pause ends 2.5s after the first acquire, near the start; its
	// liveness window, 5s after that heal, ends well before 8s.
	pause.Workload.Duration = Duration(8 * time.Second)

	kill := base
	kill.Name = "lock/" + r.Name + "/leader-kill"
	kill.Description = r.Name + " through two leader kills: holds never overlap and the lock stays linearizable"
	kill.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{
		faults.At(time.Second, time.Second, faults.Kill(faults.Leader)),
		faults.At(4*time.Second, time.Second, faults.Kill(faults.Leader)),
	}}
	kill.Workload.Duration = Duration(12 * time.Second)

	crash := base
	crash.Name = "lock/" + r.Name + "/crash-holder"
	crash.Description = r.Name + ": the first holder crashes without releasing; its lease expires and a waiter takes the lock"
	crash.Faults.Timeline = &faults.Timeline{Triggers: []faults.Trigger{crashHolder()}}
	crash.Checkers = byResource
	// The crash heals a second after the first acquire, near the start,
	// and the lease expires a TTL later; the liveness window, 5s after
	// the heal, ends well before 8s.
	crash.Workload.Duration = Duration(8 * time.Second)

	contend := contended(base)
	contend.Name = "lock/" + r.Name + "/contention"
	contend.Description = r.Name + ": two clients, each asking for the lock just as the other releases it; every waiter wakes when its turn comes"
	contend.Checkers = []Check{{Name: checker.CheckerMutualExclusion}, {Name: checker.CheckerFencing}, contentionLiveness()}

	impatient := base
	impatient.Name = "lock/" + r.Name + "/impatient-waiter"
	impatient.Description = r.Name + ": holds of two seconds and waiters that give up after half a second, on a healthy cluster; a waiter that gives up must leave nothing behind in the holder's way or its successors'"
	impatient.Workload = impatientWaiters(impatient.Workload)
	impatient.Checkers = []Check{{Name: checker.CheckerMutualExclusion}, {Name: checker.CheckerFencing}, {Name: checker.CheckerLiveness}}

	long := base
	long.Name = "lock/" + r.Name + "/long-hold"
	long.Description = r.Name + ": two clients, each holding the lock for four TTLs, on a healthy cluster; the holder's lease must stay alive for the whole hold"
	long.Workload = longHolds(long.Workload)
	long.Checkers = []Check{{Name: checker.CheckerMutualExclusion}, {Name: checker.CheckerFencing}, {Name: checker.CheckerLiveness}}
	return judgeKeys([]Scenario{mix, pause, kill, crash, contend, impatient, long, lockCrashMidHold(base, r.Name)})
}

// impatientWaiters is w with callers that give up while a healthy holder
// is ahead: holds of 2 s, written 8 times, and a patience of 500 ms, so
// that every waiter gives up several times during each hold and tries
// again after its think.
func impatientWaiters(w Workload) Workload {
	w.Hold, w.Writes, w.Patience = Duration(2*time.Second), 8, Duration(500*time.Millisecond)
	return w
}

// longHolds is w with two clients each holding for four TTLs (the TTL is
// 1 s), writing every half second: a lease that stops being renewed while
// it is held expires in the middle of the hold. The patience, 10 s, is
// longer than a hold, so a waiter waits its turn.
func longHolds(w Workload) Workload {
	w.Clients, w.Hold, w.Writes, w.Patience = 2, Duration(4*time.Second), 8, Duration(10*time.Second)
	w.Duration = Duration(14 * time.Second)
	return w
}

// pauseHolder pauses the first holder of lock L right after it acquires:
// it has checked its lease and is about to write.
func pauseHolder(d time.Duration) *faults.Timeline {
	return &faults.Timeline{Triggers: []faults.Trigger{
		faults.On(faults.Match{Kind: checker.KindAcquire, Key: "L"}, d, faults.Pause(faults.LockHolder("L"))),
	}}
}

// lockPitfalls are the gallery's broken lock recipes, each under the
// schedule that exposes it.
func lockPitfalls() []Scenario {
	pitfall := func(name, fault, desc string, w Workload, tl *faults.Timeline, checks []Check) Scenario {
		r, err := lock.Lookup(name)
		if err != nil {
			panic(err)
		}
		w.Family, w.Recipe = FamilyLock, name
		if w.Clients == 0 {
			w.Clients = 3
		}
		if w.Duration == 0 {
			w.Duration = Duration(6 * time.Second)
		}
		s := Scenario{Name: "lock/" + name + "/" + fault, Description: desc, Cluster: Cluster{Members: 3},
			Workload: w, Checkers: checks, Expect: r.Expect, Seed: 1}
		if tl != nil {
			s.Faults.Timeline = tl
		}
		if fault == "contention" {
			s = contended(s)
		}
		return s
	}
	full := []Check{{Name: checker.CheckerMutualExclusion}, {Name: checker.CheckerFencing}}
	return []Scenario{
		pitfall("released-marker", "healthy",
			"a release that leaves the key lets the releaser jump back ahead of the holder: two holders on a healthy cluster",
			Workload{Think: Duration(10 * time.Millisecond), Duration: Duration(2 * time.Second)}, nil, full),
		pitfall("unfenced", "pause-holder",
			"a correct mutex without a fencing token: the holder paused past its TTL writes after its successor",
			Workload{}, pauseHolder(2500*time.Millisecond),
			[]Check{{Name: checker.CheckerMutualExclusion, ResourceOnly: true}}),
		pitfall("setnx", "crash-holder",
			"a lock without a lease: its holder crashes and the lock is never freed",
			Workload{Duration: Duration(9 * time.Second), Patience: Duration(time.Second)},
			&faults.Timeline{Triggers: []faults.Trigger{crashHolder()}}, []Check{{Name: checker.CheckerLiveness}}),
		pitfall("keepalive-misconfigured", "isolate-holder",
			"a hand-rolled keepalive that gives up 1.5 TTLs after its last renewal: the holder, cut off, works on after its successor took the lock",
			Workload{Clients: 2, TTL: Duration(4 * time.Second), Hold: Duration(8 * time.Second), Writes: 16, Duration: Duration(12 * time.Second)},
			&faults.Timeline{Triggers: []faults.Trigger{
				faults.On(faults.Match{Kind: checker.KindAcquire, Key: "L"}, 7*time.Second, faults.Isolate(faults.LockHolder("L"))),
			}}, full),
		pitfall("shared-session", "healthy",
			"three goroutines of one process share a session, so they share the mutex key: all three hold the lock on a healthy cluster",
			Workload{Clients: 1, Threads: 3, Duration: Duration(4 * time.Second)}, nil, full),
		pitfall("serializable-check", "partition-holder-member",
			"a holder that asks a serializable read whether it still holds the lock: its member, cut off from the rest, keeps saying yes after the lease expired",
			// Whoever acquires second waits in line for the first hold
			// (patience 14s), so c1 holds at the start or at about 6s and
			// its member's cut heals before the run ends. A hold of 6s
			// leaves c1's lease time to expire on the majority's side even
			// when a loaded machine makes it change leaders, each of which
			// renews every lease.
			Workload{Clients: 2, Pinned: true, OwnerCheck: OwnerCheckRead, Hold: Duration(6 * time.Second), Writes: 30,
				Patience: Duration(14 * time.Second), Duration: Duration(16 * time.Second)},
			&faults.Timeline{Triggers: []faults.Trigger{
				faults.On(faults.Match{Kind: checker.KindAcquire, Client: "c1", Key: "L"}, 8*time.Second, faults.Partition(faults.Member(0))),
			}}, full),
		pitfall("delete-name", "impatient-waiter",
			"release and clean-up delete the lock's name: a waiter that gives up frees the holder's lock",
			Workload{Hold: Duration(600 * time.Millisecond), Patience: Duration(200 * time.Millisecond)}, nil, full),
		pitfall("orphaned-waiter", "impatient-waiter",
			"a Lock that gives up leaves its key, its session still renewed, in the queue: once the holder releases, nobody gets the lock again",
			impatientWaiters(Workload{Duration: Duration(12 * time.Second)}), nil,
			[]Check{{Name: checker.CheckerMutualExclusion}, {Name: checker.CheckerLiveness}}),
		pitfall("call-context-keepalive", "long-hold",
			"the lease is kept alive under the context Lock was called with, which ends when Lock returns: a hold of four TTLs outlives the lease, and the next client takes the lock while the holder works on",
			longHolds(Workload{}), nil, full),
		pitfall("missed-wakeup", "contention",
			"a waiter watches its predecessor from \"now\": the predecessor releases between the waiter's read and its watch, and the waiter waits on a free lock",
			contention(Workload{}), nil, append(slices.Clip(full), contentionLiveness())),
	}
}
