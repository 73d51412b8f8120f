package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// The upstream scenarios of the lock family.

// upstreamLock is a lock scenario of recipe with workload w (family,
// recipe and, if unset, the duration filled in), timeline tl, checkers and
// expectation.
func upstreamLock(recipe string, w Workload, tl *faults.Timeline, checks []Check, expect checker.Expectation) Scenario {
	w.Family, w.Recipe = FamilyLock, recipe
	if w.Duration == 0 {
		w.Duration = Duration(6 * time.Second)
	}
	s := Scenario{Cluster: Cluster{Members: 3}, Workload: w, Checkers: checks, Expect: expect, Seed: 1}
	if tl != nil {
		s.Faults.Timeline = tl
	}
	return s
}

var (
	upOverlap        = checker.Expectation{Checker: checker.CheckerMutualExclusion, Violation: checker.ViolationOverlap}
	upStaleWrite     = checker.Expectation{Checker: checker.CheckerMutualExclusion, Violation: checker.ViolationStaleWrite}
	upStarvation     = checker.Expectation{Checker: checker.CheckerLiveness, Violation: checker.ViolationStarvation}
	upHoldsAndTokens = []Check{{Name: checker.CheckerMutualExclusion}, {Name: checker.CheckerFencing}}
	upByResource     = []Check{{Name: checker.CheckerMutualExclusion, ResourceOnly: true}}
)

// upstream22082: two processes, each with one session for its life and a
// new Mutex per critical section. The first holder's answers are lost from
// the moment it has done its work, for 400ms: its Unlock's delete commits,
// its caller hears an error, and the run goes on. The other process takes
// the lock; the first locks again with the same session, waits, acquires,
// and retries its old Unlock, which deletes its new key: the other
// process, queued again, enters while it holds. The TTL of 2s keeps the
// session alive through the loss.
func upstream22082() []Scenario {
	r := report("etcd-22082")
	w := Workload{Clients: 2, TTL: Duration(2 * time.Second), Hold: Duration(500 * time.Millisecond), Duration: Duration(5 * time.Second)}
	tl := func() *faults.Timeline {
		return &faults.Timeline{Triggers: []faults.Trigger{
			faults.On(faults.Match{Kind: checker.KindCounterIncr, Key: "L"}, 400*time.Millisecond,
				faults.LoseResponses(faults.LockHolder("L"))),
		}}
	}
	return []Scenario{
		r.scenario(upstreamLock("unlock-retry", w, tl(), upHoldsAndTokens, upOverlap), "unlock-retry", ShowsReport,
			"the holder's answers are lost as it unlocks; it locks again on the same session and retries the old "+
				"Unlock, which deletes its new lock: two holders"),
		r.scenario(upstreamLock("unlock-retry-fenced", w, tl(), upHoldsAndTokens, checker.Expectation{}), "fixed", ShowsFix,
			"the same schedule with the release fenced by the Mutex's create revision: the retried Unlock deletes nothing"),
	}
}

// pauseWaiter is the pause-waiter schedule of the upstream scenarios, in
// the lock family (take is KindAcquire, key "L") or the election family
// (KindCampaign, "E"): c1 takes the key first and keeps it for 4s, c2
// waits behind it and is paused from 2.5s to 7s, past its TTL, while c1
// gives the key up and takes it again. Should c2 win the first race, it
// crashes as it wins and comes back 300ms later, queued behind c1. The
// crash is short, and the timeline ends half a second before the run, so
// that should c2 first win late in the run its crash is healed in time.
// The gallery's pause-waiter scenarios run it too.
func pauseWaiter(take checker.Kind, key string) *faults.Timeline {
	c2 := faults.Client("c2")
	return &faults.Timeline{
		Steps: []faults.Step{faults.At(2500*time.Millisecond, 4500*time.Millisecond, faults.Pause(c2))},
		Triggers: []faults.Trigger{
			faults.On(faults.Match{Kind: take, Client: "c2", Key: key}, 300*time.Millisecond, faults.Crash(c2)),
		},
		End: 8500 * time.Millisecond, // the trigger need not fire
	}
}

// pauseWaiterWorkload is the workload pauseWaiter needs: two clients that
// keep the key 4s, and patience enough to wait through the pause.
func pauseWaiterWorkload() Workload {
	return Workload{Clients: 2, Hold: Duration(4 * time.Second), Patience: Duration(8 * time.Second), Duration: Duration(9 * time.Second)}
}

// lockPauseWaiter is pauseWaiter in the lock family.
func lockPauseWaiter() (Workload, *faults.Timeline) {
	return pauseWaiterWorkload(), pauseWaiter(checker.KindAcquire, "L")
}

// upstream19597Mutex is the Mutex half of etcd #19597 on v3.7.3: the
// waiter's session expires while it is paused in Mutex.Lock; when it
// wakes, Lock re-reads its key, finds it gone and returns
// ErrSessionExpired. No second holder.
func upstream19597Mutex() Scenario {
	w, tl := lockPauseWaiter()
	return report("etcd-19597").scenario(upstreamLock("mutex", w, tl, upHoldsAndTokens, checker.Expectation{}),
		"mutex-pause-waiter", ShowsFixedUpstream,
		"the Mutex half is fixed in this version: a waiter paused past its TTL in Mutex.Lock wakes to "+
			"ErrSessionExpired, not to the lock")
}

// upstream11456: a waiter in the lock service whose lease expires while
// the service waits for it. The schedule is pauseWaiter's with the pause
// replaced by a slow link: from 2.5s to 7s everything c2 sends or
// receives takes 2s, so its renewals arrive too late and its lease
// expires, while its Lock call, in the service, goes on. A pause would
// not do: the pause's heal resets c2's connections, and the call would
// end with the transport's error instead of the service's answer. When
// c1 releases, the service re-reads c2's key, finds it gone, and answers
// ErrSessionExpired, which reaches c2 2s later.
func upstream11456() []Scenario {
	w := pauseWaiterWorkload()
	tl := pauseWaiter(checker.KindAcquire, "L")
	tl.Steps = []faults.Step{faults.At(2500*time.Millisecond, 4500*time.Millisecond, faults.Delay(faults.Client("c2"), 2*time.Second, 0))}
	return []Scenario{
		report("etcd-11456").scenario(upstreamLock("v3lock", w, tl, upHoldsAndTokens, checker.Expectation{}),
			"v3lock-slow-waiter", ShowsFixedUpstream,
			"fixed in this version: a caller whose renewals arrive too late while the lock service waits for it "+
				"is answered that its session expired, not that it holds the lock"),
	}
}

// upstream11360: three goroutines of one process share a session; the fix
// gives each holder a session of its own.
func upstream11360() []Scenario {
	r := report("etcd-11360")
	w := Workload{Clients: 1, Threads: 3, Duration: Duration(4 * time.Second)}
	return []Scenario{
		r.scenario(upstreamLock("shared-session", w, nil, upHoldsAndTokens, upOverlap), "shared-session", ShowsReport,
			"three goroutines share one session and so one mutex key: all three hold the lock on a healthy cluster"),
		r.scenario(upstreamLock("mutex", w, nil, upHoldsAndTokens, checker.Expectation{}), "fixed", ShowsFix,
			"the same three goroutines with a session each: one holder at a time"),
	}
}

// isolateHolder cuts the first holder of L off from every member as it
// acquires, for 2.5s: its lease expires, a waiter takes the lock, and the
// holder, which checked it still held the lock before its 2s of work,
// writes to the resource when the work is done.
func isolateHolder() *faults.Timeline {
	return &faults.Timeline{Triggers: []faults.Trigger{
		faults.On(faults.Match{Kind: checker.KindAcquire, Key: "L"}, 2500*time.Millisecond, faults.Isolate(faults.LockHolder("L"))),
	}}
}

// upstream10811: a holder paused, then a holder cut off, past its TTL;
// without a token the resource takes its late write, with the holder's
// create revision as the token it refuses it. Judged by the resource
// alone: both holders believe they hold the lock, as the report says.
func upstream10811() []Scenario {
	r := report("etcd-10811")
	// Waiters give up after 500ms and ask again, so the one that succeeds
	// the paused or cut-off holder asked after that holder's hold began:
	// the checker then knows for sure the late write came after a newer
	// holder, however slow the machine.
	pause := Workload{Patience: Duration(500 * time.Millisecond)}
	cut := Workload{Hold: Duration(2 * time.Second), Patience: Duration(500 * time.Millisecond)}
	return []Scenario{
		r.scenario(upstreamLock("unfenced", pause, pauseHolder(2500*time.Millisecond), upByResource, upStaleWrite),
			"pause-holder", ShowsReport,
			"the holder is paused between its check and its write, past its TTL: its write lands after its successor's"),
		r.scenario(upstreamLock("mutex", pause, pauseHolder(2500*time.Millisecond), upByResource, checker.Expectation{}),
			"pause-holder-fixed", ShowsFix,
			"the same pause with the holder's create revision as a fencing token: the resource refuses the late write"),
		r.scenario(upstreamLock("unfenced", cut, isolateHolder(), upByResource, upStaleWrite),
			"partition-holder", ShowsReport,
			"the holder is cut off from etcd, not from the resource, past its TTL: its write lands after its successor took the lock"),
		r.scenario(upstreamLock("mutex", cut, isolateHolder(), upByResource, checker.Expectation{}),
			"partition-holder-fixed", ShowsFix,
			"the same cut with the holder's create revision as a fencing token: the resource refuses the late write"),
	}
}

// crashHolder crashes the first holder of L as it acquires; it stays down
// for a second. Its lock is freed only when its lease expires.
func crashHolder() faults.Trigger {
	return faults.On(faults.Match{Kind: checker.KindAcquire, Key: "L"}, time.Second, faults.Crash(faults.LockHolder("L")))
}

// upstream9395: the first holder crashes as it acquires; from 500ms to
// 2.5s leadership moves every 300ms. Each new leader gives the crashed
// holder's lease its 4s again, so the lock is freed only about a TTL after
// the storm: Liveness, whose bound of 2s after the last heal is half the
// TTL, reports the waiters starved. The control crashes the holder the
// same way without the storm: the lease expires a TTL after the crash,
// well within the bound. Each client stops after two acquisitions, so no
// waiter is left when the run ends: Liveness judges the crash and the
// storm, not the run's end.
func upstream9395() []Scenario {
	r := report("etcd-9395")
	w := Workload{TTL: Duration(4 * time.Second), Ops: 2, Duration: Duration(10 * time.Second)}
	checks := []Check{{Name: checker.CheckerLiveness, Bound: Duration(2 * time.Second)}, {Name: checker.CheckerMutualExclusion}}
	storm := &faults.Timeline{
		Steps:    []faults.Step{faults.At(500*time.Millisecond, 2*time.Second, faults.LeaderStorm(300*time.Millisecond))},
		Triggers: []faults.Trigger{crashHolder()},
	}
	calm := &faults.Timeline{Triggers: []faults.Trigger{crashHolder()}}
	return []Scenario{
		r.scenario(upstreamLock("mutex", w, storm, checks, upStarvation), "storm-crash-holder", ShowsReport,
			"the holder crashes, then leadership moves every 300ms for 2s: each new leader renews the crashed "+
				"holder's lease, and its lock stays held a TTL past the storm"),
		r.scenario(upstreamLock("mutex", w, calm, checks, checker.Expectation{}), "crash-holder", ShowsControl,
			"the holder crashes with no leader change: its lock is free a TTL after the crash"),
	}
}
