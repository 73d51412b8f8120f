package scenarios

import (
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/recipes/queue"
)

// FamilyQueue names the family.
const FamilyQueue = recipe.Queue

// queueFamily: producers enqueue, consumers dequeue.
var queueFamily = family{
	name:  FamilyQueue,
	key:   "Q",
	knobs: []string{"producers", "priorities"},
	defaults: func(w *Workload) {
		if w.Producers == 0 {
			w.Producers = max(1, w.Clients/2)
		}
	},
	validate: func(s Scenario, bad func(format string, args ...any)) {
		w := s.Workload
		if w.Producers < 0 || w.Producers >= w.Clients || w.Clients < 2 {
			bad("workload.producers %d: want 1 to workload.clients-1 (%d clients; 0 means half), so that someone consumes", w.Producers, w.Clients)
		}
		if w.Priorities < 0 || w.Priorities > 1<<16 {
			bad("workload.priorities %d: want 0 (a FIFO queue) to 65536", w.Priorities)
		}
	},
	checkers: []checker.Name{checker.CheckerQueueDelivery},
	command:  queueCommand,
	slots:    []slot{slotOf(FamilyQueue, "WithQueue", func(w *Workload) **queue.Recipe { return &w.Queue }, queue.Lookup)},
	run:      (*world).queueWorkload,
	safety:   []string{"QueueSafety"},
	gallery:  queueScenarios,
}

// WithQueue is WithLock for a queue recipe.
func (s Scenario) WithQueue(r queue.Recipe) Scenario {
	s.Workload.Queue = &r
	return s.reuse(r.Name, r.Expect, false)
}

// queueLatency is the network latency of every queue run: etcd's Queue
// names its keys by time.Now().UnixNano(), which on the virtual clock
// stands still between requests that take no time (see rwLatency).
const queueLatency = Duration(time.Millisecond)

// queuePriorities is how many priorities a priority recipe's items are
// drawn from in the gallery's scenarios.
const queuePriorities = 4

// priorityRecipes are the recipes of the gallery that are priority
// queues.
var priorityRecipes = []string{"priority-claimed", "priority-at-most-once", "unpadded-priority"}

// queueBase is a queue scenario of recipe r: 3 members, the given
// workload with its family, recipe and (for a priority queue) priorities
// filled in, a patience of 1 s, QueueDelivery, seed 1.
func queueBase(r queue.Recipe, w Workload) Scenario {
	w.Family, w.Recipe = FamilyQueue, r.Name
	if w.Patience == 0 {
		w.Patience = Duration(time.Second)
	}
	if w.Priorities == 0 && slices.Contains(priorityRecipes, r.Name) {
		w.Priorities = queuePriorities
	}
	s := Scenario{Cluster: Cluster{Members: 3, Latency: queueLatency}, Workload: w, Seed: 1,
		Checkers: []Check{{Name: checker.CheckerQueueDelivery}}}
	if !slices.ContainsFunc(queue.Recipes(), func(x queue.Recipe) bool { return x.Name == r.Name }) {
		rr := r
		s.Workload.Queue = &rr
	}
	return s.recordCommand()
}

// queueMix is two producers and two consumers: items every 20 ms or so
// from each producer, taken as they come.
func queueMix(d time.Duration) Workload {
	return Workload{Clients: 4, Producers: 2, Think: Duration(20 * time.Millisecond), ThinkJitter: Duration(10 * time.Millisecond),
		Duration: Duration(d)}
}

// lostClaims is the schedule that loses the answers to the consumers'
// requests: ten windows of 150 ms, every 300 ms from 0.5 s, on both
// consumers, c3 and c4. Items pile up while the consumers are cut off, so
// in between they claim one after another, and some window opens after
// the cluster received a claim and before its answer came back.
func lostClaims() *faults.Timeline {
	var steps []faults.Step
	for i := range 10 {
		at := 500*time.Millisecond + time.Duration(i)*300*time.Millisecond
		for _, c := range []string{"c3", "c4"} {
			steps = append(steps, faults.At(at, 150*time.Millisecond, faults.LoseResponses(faults.Client(c))))
		}
	}
	return &faults.Timeline{Steps: steps}
}

// lostClaimWorkload is queueMix for 7 s, the producers a little slower:
// they stop at 3.5 s, after the last window closed (3.35 s), and the
// consumers have the second half of the run to take the items that piled
// up while they were cut off — on the real clock, where a dequeue takes
// tens of milliseconds, about a second's worth — and to see the queue
// empty.
func lostClaimWorkload() Workload {
	w := queueMix(7 * time.Second)
	w.Think = Duration(25 * time.Millisecond)
	return w
}

// QueueSafety returns the scenarios a correct queue recipe — one of ours
// or a user's own — must pass, judged by QueueDelivery: two producers and
// two consumers under the standard fault mix, and the same with the
// answers to the consumers' requests lost again and again; and
// queuePatience's consumers that give up a dequeue on an empty queue.
func QueueSafety(r queue.Recipe) []Scenario {
	mix := queueBase(r, queueMix(10*time.Second))
	mix.Name = "queue/" + r.Name + "/standard-mix"
	mix.Description = r.Name + ": two producers and two consumers under a leader kill, a minority partition, a client cut off, a leader storm and a compaction"
	mix.Faults.Timeline = standardMix()

	lost := queueBase(r, lostClaimWorkload())
	lost.Name = "queue/" + r.Name + "/lost-claim"
	lost.Description = r.Name + ": the answers to the consumers' requests are lost ten times; every item still reaches a consumer once"
	lost.Faults.Timeline = lostClaims()
	return append([]Scenario{mix, lost}, queuePatience(r)...)
}

// queueScenarios are the family's scenarios: every correct recipe of the
// gallery under QueueSafety, then each broken one under the schedule
// that exposes it.
func queueScenarios() []Scenario {
	var out []Scenario
	for _, r := range queue.Recipes() {
		if !r.Broken {
			out = append(out, QueueSafety(r)...)
		}
	}
	broken := func(name, schedule, description string, w Workload, tl *faults.Timeline) Scenario {
		r, err := queue.Lookup(name)
		if err != nil {
			panic(err)
		}
		s := queueBase(r, w)
		s.Name = "queue/" + name + "/" + schedule
		s.Description = description
		if tl != nil {
			s.Faults.Timeline = tl
		}
		s.Expect = r.Expect
		return s
	}
	contention := Workload{Clients: 4, Producers: 1, Think: Duration(20 * time.Millisecond), ThinkJitter: Duration(10 * time.Millisecond),
		Duration: Duration(3 * time.Second)}
	backlog := Workload{Clients: 3, Producers: 2, Priorities: 12, Think: Duration(12 * time.Millisecond), ThinkJitter: Duration(10 * time.Millisecond),
		Duration: Duration(5 * time.Second)}
	return append(out,
		broken("at-most-once", "lost-claim", "etcd's Queue: a claim whose answer was lost took the item from everyone and gave it to no one",
			lostClaimWorkload(), lostClaims()),
		broken("priority-at-most-once", "lost-claim", "etcd's PriorityQueue: a claim whose answer was lost took the item from everyone and gave it to no one",
			lostClaimWorkload(), lostClaims()),
		broken("unconditional-claim", "contention", "three consumers wake to each item; each reads it and deletes it unconditionally, and more than one returns it",
			contention, nil),
		broken("unpadded-priority", "backlog", "two producers about as fast as the one consumer; priorities 0 to 11 written as plain text: items of priority 10 and 11 are served while items of priority 2 to 9 wait",
			backlog, nil),
	)
}
