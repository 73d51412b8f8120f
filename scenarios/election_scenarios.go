package scenarios

import (
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/recipe"
)

// FamilyElection names the family.
const FamilyElection = recipe.Election

// electionFamily: candidates campaign, lead for a term and resign, and
// observers watch who leads.
var electionFamily = family{
	name:      FamilyElection,
	key:       "E",
	observers: 1,
	knobs:     []string{"elections"},
	keys:      electionKeys,
	clientKeys: func(w Workload, client string) []string {
		return []string{electionOf(w, client) + "/"}
	},
	validate: func(s Scenario, bad func(format string, args ...any)) {
		if s.Workload.Clients < 2 && s.Expect.Violation == checker.ViolationTwoLeaders {
			bad("workload.clients %d: two leaders need at least 2 candidates", s.Workload.Clients)
		}
		if n := s.Workload.Elections; n < 0 || n > s.Workload.Clients {
			bad("workload.elections %d: want 0 or 1 (one election) up to workload.clients (%d)", n, s.Workload.Clients)
		}
	},
	checkers:   []checker.Name{checker.CheckerElectionSafety, checker.CheckerLiveness, checker.CheckerKeysOnLeases},
	slots:      []slot{slotOf(FamilyElection, "WithElection", func(w *Workload) **election.Recipe { return &w.Election }, election.Lookup)},
	command:    electionCommand,
	run:        (*world).electionWorkload,
	safety:     []string{"ElectionSafety"},
	unfenced:   "election safety judges it by who led when",
	serverSide: []string{"server"},
	gallery:    electionScenarios,
}

// WithElection is WithLock for an election recipe.
func (s Scenario) WithElection(r election.Recipe) Scenario {
	s.Workload.Election = &r
	return s.reuse(r.Name, r.Expect, false)
}

// electionScenarios are the election family's registered scenarios: each
// correct recipe's ElectionSafety, then each broken recipe under the
// schedule that exposes it.
func electionScenarios() []Scenario {
	var out []Scenario
	for _, r := range election.Recipes() {
		if !r.Broken {
			out = append(out, ElectionSafety(r)...)
		}
	}
	return append(append(out, electionPitfalls()...), electionForeignScenarios()...)
}

// ElectionSafety returns the scenarios a correct election recipe — one of
// ours or a user's own — must pass: the standard fault mix; a leader
// paused past its TTL right after it wins; and a candidate paused past its
// TTL while it waits its turn. Every leader proclaims its value once in
// each term, so a recipe that orders candidates by anything but their
// keys' create revisions shows two leaders too. Each run is judged by
// ElectionSafety (one leader at a time, terms that grow, observers that
// agree) and by the fencing the term gives the leader's writes; the first
// two, which end on a healthy cluster with leaders coming and going, by
// liveness as well. And, judged by all three: a leader crashed without
// resigning, whose successor must win once its lease expires; and
// contention, two candidates each campaigning just as the other resigns,
// with a tight liveness bound — the schedule that exposes a candidate
// that can miss its wake-up.
func ElectionSafety(r election.Recipe) []Scenario {
	base := electionBase(r)
	safe := []Check{{Name: checker.CheckerElectionSafety}, {Name: checker.CheckerFencing}}
	live := append(slices.Clip(safe), Check{Name: checker.CheckerLiveness})

	mix := base
	mix.Name = "election/" + r.Name + "/standard-mix"
	mix.Description = r.Name + " under a leader kill, a minority partition, a client cut off, a leader storm and a compaction"
	mix.Workload.Duration = Duration(10 * time.Second)
	mix.Faults.Timeline = standardMix()
	mix.Checkers = live

	pause := pauseLeaderScenario(base)
	pause.Description = r.Name + ": the leader is paused past its TTL right after it wins; its term ends before the next leader's begins"
	pause.Checkers = live

	wait := pauseWaiterScenario(base)
	wait.Description = r.Name + ": a candidate queued behind the leader is paused past its TTL; when it wakes it is told its lease expired, not that it leads"
	wait.Checkers = safe

	crash := base
	crash.Name = "election/" + r.Name + "/crash-leader"
	crash.Description = r.Name + ": the first leader crashes without resigning; its lease expires and another candidate wins"
	crash.Workload.Duration = Duration(6 * time.Second)
	crash.Faults.Timeline = &faults.Timeline{Triggers: []faults.Trigger{crashLeader()}}
	crash.Checkers = live

	contend := contended(base)
	contend.Name = "election/" + r.Name + "/contention"
	contend.Description = r.Name + ": two candidates, each campaigning just as the other resigns; every candidate wakes when its turn comes"
	contend.Checkers = append(slices.Clip(safe), contentionLiveness())

	impatient := base
	impatient.Name = "election/" + r.Name + "/impatient-candidate"
	impatient.Description = r.Name + ": terms of two seconds and candidates that give up after half a second, on a healthy cluster; a candidate that gives up must leave nothing in the way of the next leader"
	impatient.Workload.Hold, impatient.Workload.Patience = Duration(2*time.Second), Duration(500*time.Millisecond)
	impatient.Workload.Duration = Duration(12 * time.Second)
	impatient.Checkers = live

	long := base
	long.Name = "election/" + r.Name + "/long-term"
	long.Description = r.Name + ": two candidates, each leading for four TTLs, on a healthy cluster; the leader's lease must stay alive for the whole term"
	long.Workload.Clients, long.Workload.Hold, long.Workload.Patience = 2, Duration(4*time.Second), Duration(10*time.Second)
	long.Workload.Duration = Duration(14 * time.Second)
	long.Checkers = live

	mid := base
	mid.Name = "election/" + r.Name + "/crash-mid-term"
	mid.Description = r.Name + ": terms of three seconds, and the leader crashes in the middle of one without resigning; its lease expires and another candidate wins"
	mid.Workload.Hold, mid.Workload.Patience = Duration(3*time.Second), Duration(10*time.Second)
	mid.Workload.Duration = Duration(10 * time.Second)
	mid.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{
		faults.At(1500*time.Millisecond, time.Second, faults.Crash(faults.ElectionLeader("E"))),
	}}
	mid.Checkers = live
	return judgeKeys([]Scenario{mix, pause, wait, crash, contend, impatient, long, mid})
}

// electionBase is the scenario every election scenario of recipe r starts
// from: three members, three candidates and one observer. A recipe that is
// not in the registry runs as the Workload's own.
func electionBase(r election.Recipe) Scenario {
	s := Scenario{
		Cluster:  Cluster{Members: 3},
		Workload: Workload{Family: FamilyElection, Recipe: r.Name, Clients: 3},
		Seed:     1,
	}
	if r.Family == "" || !slices.ContainsFunc(election.Recipes(), func(x election.Recipe) bool { return x.Name == r.Name }) {
		rr := r
		s.Workload.Election = &rr
	}
	return s.recordCommand()
}

// pauseLeaderScenario pauses the first leader of election E right after
// it wins, for three TTLs: its lease expires and another candidate wins
// while it sleeps. It wakes up between its check of Done and its write.
func pauseLeaderScenario(base Scenario) Scenario {
	s := base
	s.Name = "election/" + s.Workload.Recipe + "/pause-leader"
	s.Workload.Duration = Duration(6 * time.Second)
	s.Faults.Timeline = &faults.Timeline{Triggers: []faults.Trigger{
		faults.On(faults.Match{Kind: checker.KindCampaign, Key: "E"}, 3*time.Second, faults.Pause(faults.ElectionLeader("E"))),
	}}
	return s
}

// pauseWaiterScenario pauses a candidate while it waits behind the leader,
// until its lease has expired and the leader has resigned and won again:
// the schedule pauseWaiter describes, with two candidates whose terms
// last 4s. c1 leads the first term that lasts and c2 queues behind c1's
// key; c2 is paused from 2.5s to 7s, its lease expires by about 4s, c1
// resigns between 4 and 6s and, alone, wins the next term at once. c2
// wakes within that term and learns that the key it waited for is gone.
// The patience keeps c2's campaign waiting through it all.
func pauseWaiterScenario(base Scenario) Scenario {
	s := base
	s.Name = "election/" + s.Workload.Recipe + "/pause-waiter"
	w, pw := &s.Workload, pauseWaiterWorkload()
	w.Clients, w.Hold, w.Patience, w.Duration = pw.Clients, pw.Hold, pw.Patience, pw.Duration
	s.Faults.Timeline = pauseWaiter(checker.KindCampaign, "E")
	return s
}

// electionPitfalls are the broken election recipes, each under the
// schedule that exposes it, expecting the violation its registry entry
// names.
func electionPitfalls() []Scenario {
	pitfall := func(name string, build func(Scenario) Scenario, fault, desc string) Scenario {
		r, err := election.Lookup(name)
		if err != nil {
			panic(err)
		}
		s := build(electionBase(r))
		s.Name = "election/" + name + "/" + fault
		s.Description = desc
		s.Checkers = []Check{{Name: checker.CheckerElectionSafety}, {Name: checker.CheckerFencing}}
		s.Expect = r.Expect
		return s
	}
	contend := contended
	missed := pitfall("missed-wakeup", contend, "contention",
		"a candidate watches the key ahead of it from \"now\": the leader resigns between the candidate's read and its watch, and the election stays without a leader")
	missed.Checkers = append(missed.Checkers, contentionLiveness())
	healthy := func(s Scenario) Scenario {
		s.Workload.Duration = Duration(3 * time.Second)
		return s
	}
	return []Scenario{
		pitfall("ignoresdone", pauseLeaderScenario, "pause-leader",
			"a leader whose Done closes only on Resign is paused past its TTL: it wakes up still leading beside its successor"),
		pitfall("unchecked", pauseWaiterScenario, "pause-waiter",
			"the upstream Campaign without a recheck: a candidate paused past its TTL while queued wakes up told it leads, over a key that expired, beside the real leader"),
		pitfall("modrevision", healthy, "healthy",
			"candidates ordered by mod revision: the leader proclaims its value, its key goes to the back of the line, and the next candidate leads beside it on a healthy cluster"),
		missed,
	}
}
