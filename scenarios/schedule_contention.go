package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// The contention schedule: no fault at all, a network that takes a few
// milliseconds a message (contentionLatency), and two clients whose think
// time equals their hold time, so that each enqueues — asks for the lock,
// or campaigns — just as the other releases or resigns. A waiter's read of
// who is ahead of it and the release of that one then fall within a round
// trip of each other, again and again: the schedule that exposes a waiter
// that can miss its wake-up. (With the default think of 50ms and hold of
// 100ms a waiter enqueues in the middle of a hold, and never races a
// release.)
const (
	contentionHold = 100 * time.Millisecond // = the think time
	// contentionJitter spreads each think over the hold ± this, so that
	// where a waiter's enqueue falls against the release it races moves
	// from round to round, sweeping across the release instead of landing
	// at the same offset every time. Measured on the virtual clock, seeds
	// 1 to 100 of lock/missed-wakeup/contention: ± 15 ms over 16 s found
	// the missed wake-up in 95 and 96 runs, ± 40 ms over 16 s in 99, and
	// ± 40 ms over 20 s (these values) in 199 of 200 (seeds 101 to 300).
	contentionJitter = 40 * time.Millisecond
	contentionRun    = 20 * time.Second
	// contentionPatience is how long a waiter waits before it gives up:
	// longer than contentionBound, so that a waiter stuck on a free lock
	// is caught before it gives up and unsticks the lock.
	contentionPatience = 3 * time.Second
	// contentionBound is how long the lock may stay free, or the election
	// leaderless, while someone waits: a hand-off on a healthy cluster
	// takes a few round trips.
	contentionBound = 1500 * time.Millisecond
)

// contention makes w the contention workload: two clients, think about
// equal to hold, a patience past the liveness bound.
func contention(w Workload) Workload {
	w.Clients = 2
	w.Think, w.Hold = Duration(contentionHold), Duration(contentionHold)
	w.ThinkJitter = Duration(contentionJitter)
	w.Patience = Duration(contentionPatience)
	w.Duration = Duration(contentionRun)
	return w
}

// contentionLatency is the network's one-way delay in the contention
// schedule, 5ms±2.5ms, as a network has. On the virtual clock a message
// otherwise crosses in no time at all, and the gap between a waiter's read
// and its watch — the gap this schedule is for — would be empty; with a
// few milliseconds a round trip it is open on both clocks.
const contentionLatency = 5 * time.Millisecond

// contended makes s the contention schedule: the contention workload on a
// network with contentionLatency.
func contended(s Scenario) Scenario {
	s.Workload = contention(s.Workload)
	s.Cluster.Latency = Duration(contentionLatency)
	return s
}

// contentionLiveness is the liveness check of the contention schedule.
func contentionLiveness() Check {
	return Check{Name: checker.CheckerLiveness, Bound: Duration(contentionBound)}
}

// crashLeader crashes the first leader of election E right after it wins;
// it stays down for a second. It never resigns: the next candidate wins
// only when its lease expires. (crashHolder is its lock twin.)
func crashLeader() faults.Trigger {
	return faults.On(faults.Match{Kind: checker.KindCampaign, Key: "E"}, time.Second, faults.Crash(faults.ElectionLeader("E")))
}
