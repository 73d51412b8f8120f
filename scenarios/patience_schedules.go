package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/recipes/barrier"
	"github.com/etcdsim/etcdsim/recipes/queue"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
)

// The schedules of lock and election that no fault makes — callers that
// give up while a healthy holder is ahead, holds several TTLs long, a
// holder crashed in the middle of its hold — for the other families whose
// clients hold something or wait for someone. Each family's …Safety
// appends them. They do not apply to discovery, whose backends stay
// registered for the whole run, many TTLs, and whose crash-backend
// crashes them in the middle of it; nor to register and stm, whose
// clients neither hold nor wait.

// rwPatience: writers and readers that give up after half a second
// behind holds of two seconds; a reader and a writer each holding for
// four TTLs; and three writers holding for three seconds, the holder
// crashed in the middle of its hold, whose lease must free the lock.
func rwPatience(r rwmutex.Recipe) []Scenario {
	checks := []Check{{Name: checker.CheckerRWExclusion}, {Name: checker.CheckerLiveness}}

	impatient := rwBase(r, Workload{Clients: 4, Readers: 2, Hold: Duration(2 * time.Second),
		Patience: Duration(500 * time.Millisecond), Duration: Duration(12 * time.Second)})
	impatient.Name = "rwmutex/" + r.Name + "/impatient-waiter"
	impatient.Description = r.Name + ": holds of two seconds and readers and writers that give up after half a second, on a healthy cluster; a caller that gives up must leave nothing in the way of the holders after it"
	impatient.Checkers = checks

	long := rwBase(r, Workload{Clients: 2, Readers: 1, Hold: Duration(8 * time.Second),
		Patience: Duration(20 * time.Second), Duration: Duration(20 * time.Second)})
	long.Name = "rwmutex/" + r.Name + "/long-hold"
	long.Description = r.Name + ": a reader and a writer, each holding for four TTLs, on a healthy cluster; the holder's lease must stay alive for the whole hold"
	long.Checkers = checks

	mid := rwBase(r, Workload{Clients: 3, Hold: Duration(3 * time.Second),
		Patience: Duration(10 * time.Second), Duration: Duration(10 * time.Second)})
	mid.Name = "rwmutex/" + r.Name + "/crash-mid-hold"
	mid.Description = r.Name + ": three writers holding for three seconds; the holder crashes in the middle of its hold without releasing, and its lease frees the lock for the next"
	mid.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{
		faults.At(1500*time.Millisecond, time.Second, faults.Crash(faults.LockHolder("RW"))),
	}}
	mid.Checkers = checks
	return []Scenario{impatient, long, mid}
}

// barrierPatience: processes arriving a second apart that give up Enter
// after half a second, so that every early one gives up and enters again
// while the barrier waits for the last; four processes inside for four
// TTLs; and a process crashed in the middle of its work inside, whose
// lease must let the others leave.
func barrierPatience(r barrier.Recipe) []Scenario {
	w := barrierRounds(12 * time.Second)
	w.Stagger, w.Patience = Duration(time.Second), Duration(500*time.Millisecond)
	impatient := barrierBase(r, w)
	impatient.Name = "barrier/" + r.Name + "/impatient-process"
	impatient.Description = r.Name + ": processes arrive a second apart and give up Enter after half a second, on a healthy cluster; an Enter that gives up must not count its process as arrived"

	w = barrierRounds(20 * time.Second)
	w.Hold, w.Patience = Duration(8*time.Second), Duration(12*time.Second)
	long := barrierBase(r, w)
	long.Name = "barrier/" + r.Name + "/long-hold"
	long.Description = r.Name + ": four processes work inside the barrier for four TTLs, on a healthy cluster; every session must stay alive for the whole round"

	w = barrierRounds(12 * time.Second)
	w.Hold = Duration(3 * time.Second)
	mid := barrierBase(r, w)
	mid.Name = "barrier/" + r.Name + "/crash-mid-hold"
	mid.Description = r.Name + ": four processes work inside the barrier for three seconds; one crashes in the middle of its work, and its lease lets the others leave"
	mid.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{
		faults.At(1500*time.Millisecond, time.Second, faults.Crash(faults.Client("c2"))),
	}}
	return []Scenario{impatient, long, mid}
}

// plainBarrierPatience: waiters that give up after half a second while the
// holder keeps the barrier up for two; and the barrier up for eight
// seconds at a time, which the waiters wait out. A plain barrier holds no
// lease, so a holder crashed in the middle of its hold leaves it up for
// good: that schedule does not apply.
func plainBarrierPatience(r barrier.PlainRecipe) []Scenario {
	w := plainBarrierRounds(12*time.Second, 2*time.Second)
	w.Writes, w.Patience = 8, Duration(500*time.Millisecond)
	impatient := plainBarrierBase(r, w)
	impatient.Name = "plain-barrier/" + r.Name + "/impatient-waiter"
	impatient.Description = r.Name + ": the holder keeps the barrier up for two seconds and the waiters give up after half a second and wait again, on a healthy cluster; no wait returns while the barrier is up"

	w = plainBarrierRounds(20*time.Second, 8*time.Second)
	w.Writes, w.Patience = 16, Duration(10*time.Second)
	long := plainBarrierBase(r, w)
	long.Name = "plain-barrier/" + r.Name + "/long-hold"
	long.Description = r.Name + ": the holder keeps the barrier up for eight seconds at a time, on a healthy cluster; the waiters wait it out"
	return []Scenario{impatient, long}
}

// queuePatience: one producer putting an item every 300 ms and two
// consumers that give up a Dequeue after 100 ms, so that most dequeues
// give up on an empty queue, some just as an item arrives: a dequeue that
// gives up must not take an item from everyone. A queue has no holder to
// hold long or to crash in the middle of a hold.
func queuePatience(r queue.Recipe) []Scenario {
	impatient := queueBase(r, Workload{Clients: 3, Producers: 1, Think: Duration(300 * time.Millisecond),
		ThinkJitter: Duration(100 * time.Millisecond), Patience: Duration(100 * time.Millisecond), Duration: Duration(10 * time.Second)})
	impatient.Name = "queue/" + r.Name + "/impatient-consumer"
	impatient.Description = r.Name + ": consumers that give up a dequeue after 100 ms while items come every 300 ms, on a healthy cluster; every item still reaches a consumer once"
	return []Scenario{impatient}
}

// lockCrashMidHold is base with holds of three seconds, the holder
// crashed in the middle of its hold without releasing: after renewing its
// lease for a while, not as it acquires (crash-holder), so its lease must
// still free the lock for the next.
func lockCrashMidHold(base Scenario, name string) Scenario {
	mid := base
	mid.Name = "lock/" + name + "/crash-mid-hold"
	mid.Description = name + ": holds of three seconds, and the holder crashes in the middle of one without releasing; its lease expires and a waiter takes the lock"
	mid.Workload.Hold, mid.Workload.Writes, mid.Workload.Patience = Duration(3*time.Second), 6, Duration(10*time.Second)
	mid.Workload.Duration = Duration(10 * time.Second)
	mid.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{
		faults.At(1500*time.Millisecond, time.Second, faults.Crash(faults.LockHolder("L"))),
	}}
	mid.Checkers = []Check{{Name: checker.CheckerMutualExclusion}, {Name: checker.CheckerFencing}, {Name: checker.CheckerLiveness}}
	return mid
}
