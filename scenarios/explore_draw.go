package scenarios

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/seed"
)

// A draw is one point of the explorer's space, as data: the workload's
// shape, the network, and one to three faults, each with the moment it
// lands against the workload. Draw makes one from a random stream;
// mutate changes one dimension of one; scenario turns it into the
// Scenario that runs, judged by the table's rule (judges).

// Phases: where a fault lands against the workload.
const (
	PhaseStart      = "start"      // at a drawn instant of the run
	PhaseInFlight   = "in-flight"  // at a drawn instant, on a network slow enough that requests are on the wire
	PhaseAcquire    = "acquire"    // as a hold, term or registration begins
	PhaseHold       = "hold"       // at a write in the middle of a hold or term
	PhaseRelease    = "release"    // as a hold or term ends
	PhaseExpiry     = "expiry"     // on the new holder as it acquires, lasting its TTL give or take a little
	PhaseCompaction = "compaction" // at the instant of a compaction
)

var phases = []string{PhaseStart, PhaseInFlight, PhaseAcquire, PhaseHold, PhaseRelease, PhaseExpiry, PhaseCompaction}

// drawnPhases weigh the phases a fresh fault is drawn in: expiry twice,
// as it is the one phase that keeps a fault on a holder across its lease's
// expiry with the hold stretched to outlast it, and it is turned into
// acquire for a fault that cannot take it.
var drawnPhases = []string{PhaseStart, PhaseInFlight, PhaseAcquire, PhaseHold, PhaseRelease, PhaseExpiry, PhaseExpiry, PhaseCompaction}

// Roles a fault is aimed at (drawnFault.Target).
const (
	roleHolder     = "holder"
	roleClient     = "client"
	roleAllClients = "all-clients"
	roleLeader     = "leader"
	roleFollower   = "follower"
	roleMinority   = "minority"
	roleMember     = "member"
	rolePinned     = "pinned"
)

// drawnFault is one fault of a draw.
type drawnFault struct {
	Action string `json:"action"`
	Target string `json:"target,omitempty"` // a role, above
	To     string `json:"to,omitempty"`     // a cut's far end, a role
	Client string `json:"client,omitempty"` // the client a client, pinned or release target names
	Member int    `json:"member,omitempty"` // the member a member target names
	Phase  string `json:"phase"`
	// At is when a step lands (start, in-flight, compaction phases).
	At Duration `json:"at,omitempty"`
	// For is how long a lasting fault lasts; 0 for an instant one.
	For Duration `json:"for,omitempty"`
	faultParams
}

// draw is one point of the space.
type draw struct {
	Members int      `json:"members"`
	Clients int      `json:"clients"`
	TTL     Duration `json:"ttl"`
	Hold    Duration `json:"hold"`
	Writes  int      `json:"writes,omitempty"`
	// Threads and Pinned are the lock family's: goroutines of one
	// process sharing its client, and clients that talk to one member.
	Threads int  `json:"threads,omitempty"`
	Pinned  bool `json:"pinned,omitempty"`
	// OwnerCheck is the lock family's Workload.OwnerCheck: "" (the
	// holder watches Done) or "read" (it asks the recipe's Owned, as a
	// library that polls its member does), drawn only for pinned clients.
	OwnerCheck string   `json:"owner_check,omitempty"`
	Patience   Duration `json:"patience"`
	Think      Duration `json:"think"`
	Jitter     Duration `json:"think_jitter,omitempty"`
	Duration   Duration `json:"duration"`
	Latency    Duration `json:"latency,omitempty"`
	// KeepAlive turns the clients' gRPC pings on (10s, 2s timeout).
	KeepAlive bool `json:"keepalive,omitempty"`
	// CompactEvery compacts the keyspace this often; 0 never.
	CompactEvery Duration `json:"compact_every,omitempty"`
	// LinkDelay slows the links of the clients named, each its own delay,
	// for the whole run.
	LinkDelay []linkDelay  `json:"link_delay,omitempty"`
	Faults    []drawnFault `json:"faults"`
	Seed      seed.Seed    `json:"seed"`
}

type linkDelay struct {
	Client string   `json:"client"`
	Delay  Duration `json:"delay"`
	Jitter Duration `json:"jitter"`
}

// pick returns one of xs.
func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

// drawer draws points of the space for one family within bounds.
type drawer struct {
	fam   *exploreFamily
	space Space
}

// draw makes a fresh point from rng.
func (d drawer) draw(rng *rand.Rand) draw {
	sp := d.space
	var x draw
	x.Members = pick(rng, 1, 3, 3, 3, 5)
	x.Members = min(max(x.Members, sp.MinMembers), sp.MaxMembers)
	x.Clients = sp.MinClients + rng.IntN(sp.MaxClients-sp.MinClients+1)
	x.TTL = Duration(time.Duration(1+rng.IntN(int(sp.MaxTTL/time.Second))) * time.Second)
	x.TTL = max(x.TTL, Duration(sp.MinTTL))
	d.drawShape(rng, &x)
	x.Latency = Duration(pick(rng, 0, 0, time.Millisecond, 2*time.Millisecond, 5*time.Millisecond, 10*time.Millisecond))
	x.Latency = min(x.Latency, Duration(sp.MaxLatency))
	if rng.IntN(4) == 0 {
		x.KeepAlive = true
	}
	if rng.IntN(3) == 0 {
		x.CompactEvery = Duration(pick(rng, 300*time.Millisecond, time.Second, 2*time.Second))
	}
	for range rng.IntN(3) {
		if rng.IntN(2) == 0 {
			dl := Duration(time.Duration(1+rng.IntN(20)) * time.Millisecond)
			x.LinkDelay = append(x.LinkDelay, linkDelay{Client: fmt.Sprintf("c%d", 1+rng.IntN(x.Clients)), Delay: dl, Jitter: Duration(rng.Int64N(int64(dl) + 1))})
		}
	}
	for range faultCount(rng, sp.MinFaults, sp.MaxFaults) {
		x.Faults = append(x.Faults, d.drawFault(rng, x))
	}
	x.Seed = seed.Seed(rng.Uint64())
	// Drawn last, so that adding it moved no earlier draw of the stream.
	if x.Pinned && rng.IntN(2) == 0 {
		x.OwnerCheck = OwnerCheckRead
	}
	d.fit(&x)
	return x
}

// faultWeights weigh the number of faults a draw composes, 0 to 3: a
// single fault is drawn most often, and no fault next. Each fault a draw
// adds may weaken the judges its rule leaves (a pause on top of a
// partition judges exclusion by the resource alone), and may hide the
// behaviour of another (a kill that ends a hold before its isolation could
// matter): a bug that one fault exposes is found sooner among draws of one
// fault, and one that a healthy cluster exposes among draws of none. Drawn
// uniformly, 0 to 3 faults found three of the gallery's pitfalls in none
// of 30 runs (docs/explore.md).
var faultWeights = [4]int{2, 3, 1, 1}

// faultCount draws how many faults a draw composes, from lo to hi, by
// faultWeights.
func faultCount(rng *rand.Rand, lo, hi int) int {
	total := 0
	for n := lo; n <= hi; n++ {
		total += faultWeights[n]
	}
	r := rng.IntN(total)
	for n := lo; n < hi; n++ {
		if r -= faultWeights[n]; r < 0 {
			return n
		}
	}
	return hi
}

// minPatience is the shortest patience drawn: a waiter that gives up
// sooner may never get a lock across a slow network, and the draw would
// test nothing.
const minPatience = 250 * time.Millisecond

// drawShape draws the workload's timing against the TTL.
func (d drawer) drawShape(rng *rand.Rand, x *draw) {
	ttl := x.TTL.D()
	x.Hold = Duration(time.Duration(float64(ttl) * pick(rng, 0.05, 0.1, 0.5, 0.9, 1.1, 2, 4)))
	if d.fam.writes {
		x.Writes = pick(rng, 1, 1, 2, 4, 8)
		x.Threads = pick(rng, 1, 1, 1, 2, 3)
		x.Pinned = rng.IntN(3) == 0
	}
	x.Patience = Duration(pick(rng, 2*ttl, x.Hold.D()/4, x.Hold.D()/2, 2*x.Hold.D(), 10*time.Second))
	x.Patience = max(x.Patience, Duration(minPatience))
	// A think of about (contenders − 1) holds balances the lock's load:
	// each contender asks for the lock about as the one ahead of it
	// releases, so that a waiter's look at who is ahead falls within a
	// round trip of that one's release, hand-off after hand-off — the race
	// a waiter that can miss its wake-up loses. Shorter thinks keep a queue
	// of waiters (a newcomer waits behind a waiter, which does not leave);
	// the contention schedule's think equal to its hold is this load for
	// two contenders.
	contenders := x.Clients * max(x.Threads, 1)
	// It is capped at a second: a think of many long holds leaves a run
	// with hardly a hand-off.
	balanced := min(time.Duration(max(contenders-1, 1))*x.Hold.D(), max(x.Hold.D(), time.Second))
	x.Think = Duration(pick(rng, 10*time.Millisecond, 50*time.Millisecond, 100*time.Millisecond, balanced, balanced))
	if rng.IntN(2) == 0 {
		x.Jitter = x.Think / 2
	}
	x.Duration = Duration(d.space.MinDuration + time.Duration(rng.Int64N(int64(d.space.MaxDuration-d.space.MinDuration)+1)))
	x.Duration = x.Duration.Truncate(100 * time.Millisecond)
}

// Truncate rounds d down to a multiple of m.
func (d Duration) Truncate(m time.Duration) Duration { return Duration(d.D().Truncate(m)) }

// drawFault draws one fault of x's family on x's cluster.
func (d drawer) drawFault(rng *rand.Rand, x draw) drawnFault {
	var table []exploreFault
	for _, f := range drawable(x.Members) {
		if d.fam.noForeign && f.aim == aimKeys {
			continue
		}
		table = append(table, f)
	}
	ef := table[rng.IntN(len(table))]
	df := drawnFault{Action: ef.action, Phase: pick(rng, drawnPhases...)}
	client := fmt.Sprintf("c%d", 1+rng.IntN(x.Clients))
	df.Client = client
	switch ef.aim {
	case aimMembers:
		df.Target = pick(rng, roleLeader, roleLeader, roleFollower, roleMember, rolePinned)
		if x.Members == 1 && df.Target == roleFollower {
			df.Target = roleLeader
		}
		df.Member = rng.IntN(x.Members)
	case aimClients, aimKeys:
		df.Target = pick(rng, roleHolder, roleHolder, roleClient, roleAllClients)
		if ef.aim == aimKeys && df.Target == roleAllClients {
			df.Target = roleHolder
		}
	case aimNodes, aimFlap:
		// The holder twice: a fault on the holder is where a lock breaks.
		df.Target = pick(rng, roleHolder, roleHolder, roleClient, roleLeader, roleMinority, rolePinned)
		if ef.action == "partition" && (df.Target == roleHolder || df.Target == roleClient) {
			df.Target = roleMinority
		}
		if ef.aim == aimFlap {
			df.Inner = pick(rng, "isolate", "pause", "partition")
			df.Target = pick(rng, roleHolder, roleClient)
			if df.Inner == "partition" {
				df.Target = pick(rng, roleMinority, roleLeader)
			}
			df.Every = Duration(pick(rng, 200*time.Millisecond, 500*time.Millisecond, time.Second))
		}
		if ef.aim == aimNodes && x.Pinned && rng.IntN(3) == 0 {
			// A pinned client depends on its one member for everything,
			// reads included: that member is aimed at more often.
			df.Target = rolePinned
		}
	case aimLink:
		// A cut is between members: the holder's member and the leader,
		// or the leader and a follower.
		df.Target, df.To = pick(rng, rolePinned, roleLeader, roleFollower), roleFollower
		if df.Target != roleLeader {
			df.To = roleLeader
		}
	}
	if ef.action == "revoke-lease" || ef.aim == aimKeys {
		// A client's lease and keys are known once it has acquired: a
		// revoke, or a write from outside, lands on the holder, as it
		// acquires or in the middle of its hold.
		df.Target, df.Phase = roleHolder, pick(rng, PhaseAcquire, PhaseHold)
	}
	if d.fam.unpinned {
		if df.Target == rolePinned {
			df.Target = roleMember
		}
		if df.To == rolePinned {
			df.To = roleFollower
		}
	}
	if x.Members < 3 && df.Target == roleMinority {
		df.Target = roleLeader // a minority of one or two members is empty
	}
	if ef.action == "delay" {
		df.Delay = Duration(pick(rng, 5*time.Millisecond, 50*time.Millisecond, 300*time.Millisecond, time.Second))
		df.Jitter = df.Delay / Duration(pick(rng, 1, 2, 4))
	}
	if ef.action == "leader-storm" || ef.action == "leader-kill-storm" {
		df.Every = Duration(pick(rng, 200*time.Millisecond, 500*time.Millisecond, time.Second))
	}
	ttl := x.TTL.D()
	if !ef.instant {
		df.For = Duration(pick(rng, ttl/4, ttl/2, ttl-100*time.Millisecond, ttl+100*time.Millisecond, 2*ttl, 3*ttl))
	}
	if df.Phase == PhaseExpiry {
		if ef.instant || ef.aim == aimNone || ef.aim == aimMembers && df.Target != rolePinned {
			df.Phase = PhaseAcquire
		} else {
			if df.Target != rolePinned { // the holder's member, as the holder acquires (pinnedHolder)
				df.Target = roleHolder
			}
			// Just short of the TTL, just past it, or well past it: a
			// recipe's own give-up (its keep-alive's deadline, its
			// session's) may lie anywhere from the TTL to twice it. Past
			// it by half the TTL or more, half the time: etcd frees an
			// expired lease's keys only at its next check, up to 500ms
			// after the TTL, so a fault that heals sooner than that
			// rarely lets a successor in before the holder hears again.
			df.For = Duration(ttl + pick(rng, -200*time.Millisecond, -50*time.Millisecond, 200*time.Millisecond, ttl/2, ttl, ttl))
		}
	}
	df.At = Duration(300*time.Millisecond + time.Duration(rng.Int64N(int64(x.Duration.D()/2))))
	if df.Phase == PhaseInFlight {
		// An instant a few microseconds off the millisecond grid, so
		// that it falls inside a request's round trip, not on its edge.
		df.At += Duration(time.Duration(1+rng.IntN(999)) * time.Microsecond)
	}
	return df
}

// fit makes x hang together: an in-flight phase needs a network slower
// than no time at all, an expiry phase a lasting fault, and the run lasts
// past the last step's heal.
func (d drawer) fit(x *draw) {
	x.Latency = max(x.Latency, Duration(d.fam.minLatency))
	for i := range x.Faults {
		f := &x.Faults[i]
		if f.Phase == PhaseInFlight && x.Latency == 0 {
			x.Latency = Duration(2 * time.Millisecond)
		}
		if f.Phase == PhaseCompaction && x.CompactEvery == 0 {
			f.Phase = PhaseStart // the compaction lands at f.At, see steps
		}
		if f.Client == "" || clientIndex(f.Client) > x.Clients {
			f.Client = "c1"
		}
		f.Member = min(f.Member, x.Members-1)
	}
	// An expiry-phase fault lands on a holder as it acquires: its hold
	// outlasts the fault by a TTL, or the hold would end before its lease
	// could expire, and the phase would test nothing; and it writes at
	// least every half TTL, so that a holder that works on is seen.
	for _, f := range x.Faults {
		if f.Phase == PhaseExpiry && x.Hold < f.For+x.TTL {
			x.Hold = f.For + x.TTL
			if d.fam.writes {
				x.Writes = max(x.Writes, int(2*x.Hold/x.TTL))
			}
		}
	}
	// Under a fault that signals loss, exclusion is judged by who held
	// when: a holder told its lease may be gone (a lease guard tells it a
	// quarter TTL before the lease could expire) must end its hold before
	// the server frees the lock, which it can only if it looks at least
	// every quarter TTL. A hold that works longer between looks would be
	// flagged whatever its recipe (a careful mutex was, isolated for 2s
	// in a 4s hold of one write); the draw's holder looks that often.
	if l, _ := x.loss(); d.fam.writes && l == signalsLoss {
		x.Writes = max(x.Writes, int((4*x.Hold+x.TTL-1)/x.TTL))
	}
	// A standing delay on a client's links would overlap a fault aimed at
	// clients at a drawn instant: the fault wins.
	for _, f := range x.Faults {
		if stepPhase(f.Phase) && (f.Target == roleHolder || f.Target == roleClient || f.Target == roleAllClients) {
			x.LinkDelay = nil
		}
	}
	// On one member, a fault that stops it leaves no member to compact:
	// the compactions go.
	for _, f := range x.Faults {
		if ef, err := exploreFaultOf(f.Action); err == nil && x.Members == 1 && (ef.aim == aimMembers || ef.aim == aimNodes && f.Target != roleHolder && f.Target != roleClient) {
			x.CompactEvery = 0
		}
	}
	// The run lasts past its last heal for as long as liveness may take:
	// a run that ends sooner can never show a lock left free while
	// somebody waits. A fault on a trigger is counted from 1s in.
	var last time.Duration
	for _, f := range x.Faults {
		at := f.At.D()
		if !stepPhase(f.Phase) {
			at = time.Second
		}
		last = max(last, at+f.For.D()+f.Every.D()*6)
	}
	// A stretch the judge counts starts once the waiters notice, which may
	// take a patience, a think and a TTL after the heal: the run leaves
	// room for that before the bound.
	x.Duration = max(x.Duration, Duration(last+x.livenessBound()+x.slack()))
}

// slack is how long the waiters of x may take to notice after the last
// heal: a patience, a think and a TTL, and a second.
func (x draw) slack() time.Duration {
	return x.Patience.D() + x.Think.D() + x.Jitter.D() + x.TTL.D() + time.Second
}

// compactUntil is when x's regular compactions stop: where the liveness
// window begins. A compaction is a fault of the history with its own
// heal, and one in the window would move the last heal to the run's end
// and leave liveness nothing to judge.
func (x draw) compactUntil() time.Duration {
	return x.Duration.D() - x.livenessBound() - x.slack()
}

// pinnedHolder is the client whose own operation a trigger-phase fault
// waits for: the client a fault aimed at "the member c is pinned to" names,
// so that the member is the holder's as it acquires or writes, not any
// member a client happens to use while someone else holds; "" (anyone's
// operation) for a fault aimed otherwise.
func (f drawnFault) pinnedHolder() string {
	if f.Target == rolePinned || f.To == rolePinned {
		return f.Client
	}
	return ""
}

// stepPhase reports whether a fault of phase p lands at a drawn instant,
// as a step, rather than on an operation, as a trigger.
func stepPhase(p string) bool {
	return p == PhaseStart || p == PhaseInFlight || p == PhaseCompaction
}

func clientIndex(name string) int {
	var i int
	fmt.Sscanf(name, "c%d", &i) //nolint:errcheck // 0 when it is no client name
	return i
}

// target is the faults.Target role r stands for in f.
func (d drawer) target(r string, f drawnFault, key string, release bool) faults.Target {
	switch r {
	case roleHolder:
		if d.fam.holder == nil || release || f.Phase == PhaseStart || f.Phase == PhaseInFlight || f.Phase == PhaseCompaction {
			// Nobody may hold at a drawn instant, and the releaser no
			// longer does: the drawn client stands for the holder.
			return faults.Client(f.Client)
		}
		return d.fam.holder(key)
	case roleClient:
		return faults.Client(f.Client)
	case roleAllClients:
		return faults.AllClients
	case roleLeader:
		return faults.Leader
	case roleFollower:
		return faults.Follower
	case roleMinority:
		return faults.Minority
	case roleMember:
		return faults.Member(f.Member)
	case rolePinned:
		return faults.Pinned(f.Client)
	}
	return faults.Leader
}

// fault builds f.
func (d drawer) fault(f drawnFault, key string) (faults.Fault, error) {
	ef, err := exploreFaultOf(f.Action)
	if err != nil {
		return faults.Fault{}, err
	}
	release := f.Phase == PhaseRelease
	var ts []faults.Target
	switch ef.aim {
	case aimNone:
	case aimLink:
		ts = []faults.Target{d.target(f.Target, f, key, release), d.target(f.To, f, key, release)}
	default:
		ts = []faults.Target{d.target(f.Target, f, key, release)}
	}
	return ef.build(ts, f.faultParams), nil
}

// timeline builds x's faults as a timeline on workload key.
func (d drawer) timeline(x draw, key string) (*faults.Timeline, error) {
	// The timeline ends a second before the workload: a trigger whose
	// moment never came is then no error of the schedule, and every fault
	// is healed before the run's last second.
	tl := &faults.Timeline{End: x.Duration.D() - time.Second}
	for _, ld := range x.LinkDelay {
		tl.Steps = append(tl.Steps, faults.At(0, x.Duration.D()-time.Second, faults.Delay(faults.Client(ld.Client), ld.Delay.D(), ld.Jitter.D())))
	}
	if x.CompactEvery > 0 {
		for t := x.CompactEvery.D(); t <= x.compactUntil(); t += x.CompactEvery.D() {
			tl.Steps = append(tl.Steps, faults.At(t, 0, faults.Compact()))
		}
	}
	for _, f := range x.Faults {
		flt, err := d.fault(f, key)
		if err != nil {
			return nil, err
		}
		switch f.Phase {
		case PhaseStart, PhaseInFlight:
			tl.Steps = append(tl.Steps, faults.At(f.At.D(), f.For.D(), flt))
		case PhaseCompaction:
			// The compaction nearest before f.At, and the fault with it.
			at := f.At.D().Truncate(x.CompactEvery.D())
			if at == 0 {
				at = x.CompactEvery.D()
			}
			tl.Steps = append(tl.Steps, faults.At(at, f.For.D(), flt))
		case PhaseAcquire, PhaseExpiry:
			tl.Triggers = append(tl.Triggers, faults.On(faults.Match{Kind: d.fam.start, Key: key, Client: f.pinnedHolder()}, f.For.D(), flt))
		case PhaseHold:
			k := d.fam.mid
			if k == "" {
				k = d.fam.start
			}
			tl.Triggers = append(tl.Triggers, faults.On(faults.Match{Kind: k, Client: f.pinnedHolder()}, f.For.D(), flt))
		case PhaseRelease:
			tl.Triggers = append(tl.Triggers, faults.On(faults.Match{Kind: d.fam.end, Client: f.Client}, f.For.D(), flt))
		default:
			return nil, fmt.Errorf("scenarios: explore: no phase %q (phases: %s)", f.Phase, strings.Join(phases, ", "))
		}
	}
	return tl, nil
}

// loss is the most a correct recipe may lose under x: the worst loss of
// its faults and of its standing link delays. A standing delay (at most
// 20ms, and as much jitter) signals loss, no worse: a keep-alive held back
// that long still reaches the server long before a TTL of a second runs
// out, and a lease guard counts its deadline from when it sent the
// renewal, so exclusion is judged by who held when. (It could keep all;
// the lock's linearizability is left out all the same, as its search on
// a long history of impatient waiters froze a run's clock for ten
// minutes: the search's time budget is read on the run's virtual clock.)
// The delay fault's hundreds of milliseconds to a second are another
// matter (its row of the table).
func (x draw) loss() (l loss, foreign bool) {
	if len(x.LinkDelay) > 0 {
		l = signalsLoss
	}
	for _, f := range x.Faults {
		ef, err := exploreFaultOf(f.Action)
		if err != nil {
			continue
		}
		if ef.loss == foreignKeys {
			foreign = true
			l = max(l, endsAtOnce)
			continue
		}
		l = max(l, ef.loss)
	}
	return l, foreign
}

// livenessBound is how long after the last heal x's lock may stay free,
// or its election leaderless, while somebody waits: a waiter whose watch
// was compacted away may sit out its patience before it looks again, and
// an expired holder's lease takes up to a TTL — twice, counting the
// renewal in flight — to go. And a waiter that gave up while its member
// could not reach a quorum withdraws its key with a delete the member
// holds for etcd's request timeout, holding up every waiter behind it:
// the floor is checker.FaultedLivenessFloor, 6.2 s on the explorer's
// clusters. (Measured: lock/mutex, TTL 1 s, patience 450 ms, a compaction
// and the leader partitioned at a release: nobody held for 5.01 s after
// the heal in 1 of 6 runs of that draw, against a floor of 5 s then.)
//
// On a healthy draw — no fault, no compaction — nothing stands between a
// release and the next waiter's wake-up but a few round trips, slow links
// included (40ms at most): the bound is the contention schedule's
// (contentionBound), which catches a waiter that missed its wake-up —
// when waiters wait longer than that bound, and think less than it, so
// that a waiter that gave up and asks again is still the same wait.
func (x draw) livenessBound() time.Duration {
	if len(x.Faults) == 0 && x.CompactEvery == 0 &&
		x.Patience.D() > contentionBound && x.Think.D()+x.Jitter.D() < contentionBound {
		return contentionBound
	}
	return max(checker.FaultedLivenessFloor(electionTimeout), x.Patience.D()+2*x.TTL.D()+time.Second)
}

// scenario is the Scenario that runs x: recipe base's workload, with x's
// shape, network and faults, judged by the table's rule.
func (d drawer) scenario(base Scenario, x draw, name string) (Scenario, error) {
	s := base
	s.Name = name
	s.Seed = x.Seed
	s.Cluster = Cluster{Members: x.Members, Latency: x.Latency, Clock: base.Cluster.Clock}
	if x.KeepAlive {
		s.Cluster.ClientKeepAliveTime, s.Cluster.ClientKeepAliveTimeout = Duration(10*time.Second), Duration(2*time.Second)
	}
	w := &s.Workload
	w.Clients, w.TTL, w.Hold, w.Patience, w.Think, w.ThinkJitter, w.Duration = x.Clients, x.TTL, x.Hold, x.Patience, x.Think, x.Jitter, x.Duration
	if d.fam.writes {
		w.Writes, w.Threads, w.Pinned, w.OwnerCheck = x.Writes, x.Threads, x.Pinned, x.OwnerCheck
	}
	key := w.Key
	if key == "" {
		key = familyOf(w.Family).key
	}
	tl, err := d.timeline(x, key)
	if err != nil {
		return Scenario{}, err
	}
	s.Faults = Faults{Timeline: tl}
	l, foreign := x.loss()
	s.Checkers = d.fam.judges(l, x.livenessBound(), foreign)
	if w.OwnerCheck == OwnerCheckRead {
		// A holder that asks its recipe before each step, instead of
		// watching its session, knows it holds only at each check: judged
		// by who held when, its hold ends at the last step it began, and
		// a step begun in time is the fenced resource's to judge.
		for i := range s.Checkers {
			if s.Checkers[i].Name == checker.CheckerMutualExclusion {
				s.Checkers[i].ByChecks = true
			}
		}
	}
	s.Expect = checker.Expectation{}
	s.Description = x.String()
	return s, nil
}

// String says what x is in one line: its faults and phases, then its shape.
func (x draw) String() string {
	var fs []string
	for _, f := range x.Faults {
		fs = append(fs, f.String())
	}
	net := "latency 0"
	if x.Latency > 0 {
		net = "latency " + x.Latency.D().String()
	}
	clients := fmt.Sprintf("%d clients", x.Clients)
	if x.Threads > 1 {
		clients += fmt.Sprintf(" of %d threads", x.Threads)
	}
	if x.Pinned {
		clients += " pinned"
	}
	if x.OwnerCheck != "" {
		clients += ", owner check " + x.OwnerCheck
	}
	if len(fs) == 0 {
		fs = append(fs, "no fault")
	}
	return fmt.Sprintf("%s; %d members, %s, TTL %v, hold %v, patience %v, %s",
		strings.Join(fs, ", "), x.Members, clients, x.TTL.D(), x.Hold.D(), x.Patience.D(), net)
}

func (f drawnFault) String() string {
	t := f.Target
	switch f.Target {
	case roleClient, rolePinned:
		t += " " + f.Client
	case roleMember:
		t = fmt.Sprintf("m%d", f.Member)
	}
	if f.To != "" {
		t += "→" + f.To
	}
	if f.Inner != "" {
		t = f.Inner + " " + t
	}
	s := f.Action + "(" + t + ") at " + f.Phase
	if f.For > 0 {
		s += " for " + f.For.D().String()
	}
	return s
}

// shape is x's faults as a signature — each action, role and phase,
// sorted — that groups findings made the same way.
func (x draw) shape() string {
	var fs []string
	for _, f := range x.Faults {
		fs = append(fs, f.Action+"("+f.Target+")@"+f.Phase)
	}
	slices.Sort(fs)
	return strings.Join(fs, " + ")
}

// clusterClock is base's clock, virtual unless it names another.
func clusterClock(base Scenario) cluster.Clock {
	if base.Cluster.Clock == cluster.ClockDefault {
		return DefaultClock
	}
	return base.Cluster.Clock
}

// electionTimeout is the explorer's clusters' raft election timeout:
// cluster.Config's default, which a draw does not change.
const electionTimeout = 100 * time.Millisecond
