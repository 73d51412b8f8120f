package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/barrier"
	"github.com/etcdsim/etcdsim/recipes/queue"
	"github.com/etcdsim/etcdsim/recipes/register"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
	"github.com/etcdsim/etcdsim/recipes/stm"
	"github.com/etcdsim/etcdsim/seed"
)

// SchemaVersion is the version of the scenario and result JSON this package
// writes. Reading a newer version is an error: a result file from a newer
// etcdsim cannot be replayed faithfully by an older one. Version 3 added
// workload.readers; version 4 the queue family's workload.producers and
// workload.priorities; version 5 the barrier family's workload.stagger;
// version 6 the operations' input.priority and output.empty, which a
// result's violations name (checker.HistoryVersion 3); version 7 workload.command, the program a recipe in another process runs,
// and the result's not_applicable and recipe_faults
// (an older etcdsim would run the registry's recipe of that name instead,
// or refuse a name it does not know, where the run was of the program);
// version 8 the operations' output.ttl, which a result's violations name
// (checker.HistoryVersion 4), and cluster.member_processes (an older
// etcdsim would run the members embedded); version 9
// cluster.client_keepalive_time and cluster.client_keepalive_timeout (an
// older etcdsim would run its clients without pings) and the faults'
// pinned (checker.HistoryVersion 5), and cluster.auth (an older etcdsim
// would run with auth off); version 10 the election family's
// workload.elections (an older etcdsim would run one election) and the
// history's users (checker.HistoryVersion 6); version 11 renamed
// cluster.member_processes to cluster.member_binaries (a member run as an
// operating-system program of its own is a member binary; an older
// etcdsim would run the members embedded); version 12
// workload.observed_ttl (an older etcdsim would run at the scenario's TTL
// whatever the recipe granted); version 13 the checks' by_checks (an older
// etcdsim would judge a holder that checks by a read up to its release).
const SchemaVersion = 13

// Scenario is one run, as data: a cluster, a workload of one recipe, a fault
// schedule, the checkers that judge the history, what they are expected to
// find, and the seed every random choice comes from. It round-trips through
// JSON with every field named, so a result file says exactly what ran.
type Scenario struct {
	// Version is the schema version; 0 means SchemaVersion.
	Version int `json:"version"`
	// Name is hierarchical, family/recipe/fault: "lock/unfenced/pause-holder".
	Name string `json:"name"`
	// Description says in one line what the scenario shows.
	Description string `json:"description,omitempty"`
	// Cluster is the cluster the run starts.
	Cluster Cluster `json:"cluster"`
	// Workload is what the clients do.
	Workload Workload `json:"workload"`
	// Faults is the fault schedule; zero means none.
	Faults Faults `json:"faults,omitzero"`
	// Checkers judge the history; nil means the family's defaults (see
	// DefaultCheckers).
	Checkers []Check `json:"checkers,omitempty"`
	// Expect is what the checkers must find: the zero Expectation means
	// every checker ok; otherwise the named checker reports a violation.
	Expect checker.Expectation `json:"expect,omitzero"`
	// Seed seeds the run: the schedule, the workload's choices, the
	// network's jitter.
	Seed seed.Seed `json:"seed"`
	// Upstream is, for a scenario that reproduces a report against etcd
	// itself, that report and what the run shows of it; nil otherwise.
	Upstream *Upstream `json:"upstream,omitempty"`
	// Control names the registered scenario that is this one's control
	// when the usual one proves nothing: the lock pitfalls' control runs
	// etcd's Mutex in place of a broken recipe, on the same schedule, and
	// expects a pass, which a schedule with one holder that may hold on to
	// the run's end leaves undecided (no acquire after the heal for
	// liveness to judge). Such a scenario names its registered fixed
	// variant instead. "" means the usual control. It is the registry's,
	// not a run's: JSON does not carry it.
	Control string `json:"-"`
}

// Cluster shapes the run's cluster. The zero Cluster is 3 in-memory members
// on the default clock.
type Cluster struct {
	// Members is the number of members; 0 means 3.
	Members int `json:"members,omitempty"`
	// Durable keeps the members' data on disk across kills.
	Durable bool `json:"durable,omitempty"`
	// Latency is every link's one-way delay for the whole run, as a
	// network has: each chunk of bytes takes Latency±Latency/2. It is not a
	// fault and nothing heals it. 0 means none: loopback sockets on the
	// real clock, no time at all on the virtual one.
	Latency Duration `json:"latency,omitempty"`
	// Clock is the clock the run goes on: "virtual" (the cluster, clients
	// and workload in a synctest bubble, on an in-memory network: the run
	// costs its CPU time, not its wall time) or "real" (embedded etcd on
	// loopback sockets, on the wall clock). "" means DefaultClock, or
	// "real" when RealClock says why the scenario needs it. See
	// cluster.Clock.
	Clock cluster.Clock `json:"clock,omitempty"`
	// RealClock, if set, says why the scenario needs the real clock — code
	// of its own that dials etcd through real sockets, say — and asking
	// for the virtual clock is then an error that says so.
	RealClock string `json:"real_clock,omitempty"`
	// MemberBinaries runs each etcd member as a member binary, an
	// operating-system program of its own
	// (cluster.Config.MemberBinaries), on the real clock: a freeze is
	// then SIGSTOP, a kill SIGKILL. "" Clock means "real" with it;
	// "virtual" is an error.
	MemberBinaries bool `json:"member_binaries,omitempty"`
	// ClientKeepAliveTime and ClientKeepAliveTimeout are the clients' gRPC
	// keepalive (cluster.Config.ClientKeepAliveTime and
	// ClientKeepAliveTimeout): how long a connection may be idle before
	// gRPC pings its member, and how long a ping may go unanswered before
	// gRPC closes the connection. 0 means clientv3's default, no pings:
	// a stream on a member that went dark with its connection open waits
	// there. gRPC pings no more often than every 10s.
	ClientKeepAliveTime    Duration `json:"client_keepalive_time,omitempty"`
	ClientKeepAliveTimeout Duration `json:"client_keepalive_timeout,omitempty"`
	// Auth, if set, turns etcd's authentication on: the recipe's clients
	// speak as users limited to its keys, the harness as root (see Auth).
	// nil means auth off.
	Auth *Auth `json:"auth,omitempty"`
	// FeatureGates sets etcd's server feature gates, as etcd's
	// --feature-gates flag does: "FastLeaseKeepAlive=false"
	// (cluster.Config.FeatureGates). "" means etcd's defaults.
	FeatureGates string `json:"feature_gates,omitempty"`
}

// DefaultClock is the clock a scenario runs on when it names none and
// needs no real sockets. Every registered scenario meets its expectation on
// both clocks (docs/pitfalls.md has the calibration of each).
const DefaultClock = cluster.ClockVirtual

// Workload is what the run's clients do. Zero fields take the defaults
// their comments give.
type Workload struct {
	// Family is one of Families(): "lock", "election", "discovery", …
	Family string `json:"family"`
	// Recipe names the recipe in its family's registry (lock.Lookup,
	// election.Lookup, discovery.LookupRegistrar, register.Lookup,
	// stm.Lookup, …). "" means, for register, etcd's own KV; for stm,
	// "serializable-snapshot".
	// A recipe value set below wins, and Recipe then only names it.
	Recipe string `json:"recipe,omitempty"`
	// Command, if set, is the program the recipe runs, one process per
	// client, speaking docs/protocol.md (package program):
	// Recipe is then only its name. A process recipe's value records its
	// command here, so that a replay from JSON starts the same program;
	// such a scenario runs on the real clock. Lock and election families.
	Command []string `json:"command,omitempty"`
	// Resolver names the discovery resolver recipe; "" means "relisting".
	// A ResolverRecipe set below wins, and Resolver then only names it.
	Resolver string `json:"resolver,omitempty"`
	// Clients is how many clients (c1, c2, …) take part: lockers,
	// candidates, or discovery backends; for a barrier, the processes it
	// waits for, its count; for a plain barrier, its holder (c1) and its
	// waiters. 0 means 3.
	Clients int `json:"clients,omitempty"`
	// Threads is how many goroutines of each lock client take part,
	// sharing its etcd client and one Locker as the workers of one process
	// do; thread j of client c1 is recorded as c1/j. 0 means 1, and the
	// client is recorded as c1.
	Threads int `json:"threads,omitempty"`
	// Pinned has each client talk to one member only — c1 to m0, c2 to
	// m1, and so on round the members — as a client given its local
	// member's endpoint does. false means every client talks to every
	// member. Lock family only.
	Pinned bool `json:"pinned,omitempty"`
	// OwnerCheck is how a lock holder makes sure it still holds the lock
	// before each write: "done" watches its Held's Done channel; "read"
	// asks the recipe (lock.Checker's Owned, a read of its key in etcd)
	// and ignores Done, as a holder that polls etcd does; "keepalive"
	// asks for an answer to a keep-alive of its lease
	// (lock.KeepAliveChecker), records it, and holds on while the answer
	// gives the lease a TTL. "" means "done". Lock family only.
	OwnerCheck string `json:"owner_check,omitempty"`
	// Serializable has register clients read serializably: the member a
	// read reaches answers from its own copy without asking the leader, so
	// a member cut off from the others answers with what it had. false
	// means linearizable reads. Register family only.
	Serializable bool `json:"serializable,omitempty"`
	// Readers is how many of the clients, from c1 on, only read. In the
	// register family a reader that holds a cached value and never writes
	// keeps it, where a write that fails makes a leasing KV drop it; 0
	// means every client reads and writes. In the rwmutex family readers
	// take read locks and the others write locks; 0 means none. Register
	// and rwmutex families only.
	Readers int `json:"readers,omitempty"`
	// Observers is how many clients only watch: election observers,
	// discovery resolvers, register watchers, stm auditors. 0 means 1 for
	// election, discovery, register and stm.
	Observers int `json:"observers,omitempty"`
	// Duration is how long the workload runs. 0 means 8s.
	Duration Duration `json:"duration,omitempty"`
	// Ops caps each client's operations (acquisitions, terms, RPCs); 0
	// means as many as fit in Duration.
	Ops int `json:"ops,omitempty"`
	// Think is each client's pause between operations. 0 means 50ms.
	Think Duration `json:"think,omitempty"`
	// ThinkJitter spreads each think of a lock or election client over
	// Think±ThinkJitter, drawn from the run's seed, a stream per client. 0
	// means every think is Think.
	ThinkJitter Duration `json:"think_jitter,omitempty"`
	// Hold is how long a holder or leader works before it releases or
	// resigns. 0 means 100ms.
	Hold Duration `json:"hold,omitempty"`
	// Writes is how many times a lock holder checks that it still holds
	// the lock, works and writes to the guarded resources during one hold,
	// spread evenly over Hold; how many times a plain barrier's holder
	// writes its work while the barrier is up. 0 means 1.
	Writes int `json:"writes,omitempty"`
	// Stagger, in the barrier family, spaces the clients' first arrivals:
	// client ci calls its first Enter (i-1)·Stagger after the start, so
	// that they arrive in order, the last well after the first. 0 means
	// all at once.
	Stagger Duration `json:"stagger,omitempty"`
	// Patience is how long a client waits for a lock or an election
	// before it gives up and tries again. 0 means twice the TTL.
	Patience Duration `json:"patience,omitempty"`
	// TTL is the lease TTL of every session, a whole number of seconds.
	// 0 means 1s. The scenario's other times are written for it: see
	// Scenario.WithTTL for how they scale to another.
	TTL Duration `json:"ttl,omitempty"`
	// ObservedTTL has the run take the TTL the recipe grants its leases,
	// for a recipe whose TTL is fixed in its code: a short probe of the
	// workload, with no faults, reads the TTL of the leases it grants,
	// and the run is the scenario played at that TTL (WithTTL), saying
	// so once in Result.RecipeFaults. TTL is then only what the scenario
	// was written for. false means the run keeps TTL, and the judges take
	// the TTL the recipe was granted all the same (checker.TTLNote).
	ObservedTTL bool `json:"observed_ttl,omitempty"`
	// Key is the lock, election or service name. "" means "L", "E" or
	// "svc" ("RW" for a read-write lock, "Q" for a queue, "B" for a
	// barrier).
	Key string `json:"key,omitempty"`
	// Elections, in the election family, splits the clients over that
	// many elections, named Key1, Key2, …: candidate ci, and observer oi,
	// takes part in election ((i-1) mod Elections)+1. 0 or 1 means one
	// election, named Key.
	Elections int `json:"elections,omitempty"`
	// Producers is how many of the clients of the queue family (c1, c2,
	// …) enqueue; the others dequeue. 0 means half the clients.
	Producers int `json:"producers,omitempty"`
	// Priorities, for the queue family, makes each enqueue draw its
	// item's priority from 0 to Priorities-1; the recipe must then be a
	// queue.PriorityQueue. 0 means a FIFO queue: every item of priority 0.
	Priorities int `json:"priorities,omitempty"`

	// A user's own recipe, run instead of the registry's. Recipe is its
	// name in reports; replaying a run of it needs the program that
	// registered it.
	Lock      *lock.Recipe               `json:"-"`
	Election  *election.Recipe           `json:"-"`
	Registrar *discovery.RegistrarRecipe `json:"-"`
	RWMutex   *rwmutex.Recipe            `json:"-"`
	Queue     *queue.Recipe              `json:"-"`
	Barrier   *barrier.Recipe            `json:"-"`
	// PlainBarrier is a user's own plain barrier (plain-barrier family).
	PlainBarrier *barrier.PlainRecipe `json:"-"`
	// Register is a user's own client-side KV (register family).
	Register *register.Recipe `json:"-"`
	// STM is a user's own transaction code (stm family).
	STM *stm.Recipe `json:"-"`
	// ResolverRecipe is a user's own discovery resolver, run instead of
	// the registry's; Resolver is its name in reports.
	ResolverRecipe *discovery.ResolverRecipe `json:"-"`
	// Decode reads the records of a discovery registrar that writes a
	// format of its own (set it with WithDecoder): every resolver of the
	// run, the registry's and a user's own, reads through it
	// (discovery.Options.Decode), so either side is judged alone. nil
	// means the record of etcd's endpoints manager.
	Decode discovery.Decode `json:"-"`
}

// How a lock holder makes sure it still holds the lock (Workload.OwnerCheck).
const (
	OwnerCheckDone      = "done"
	OwnerCheckRead      = "read"
	OwnerCheckKeepAlive = "keepalive"
)

// Faults is a scenario's fault schedule: a Timeline, a Nemesis, a
// Schedule of a program's own, or any of them together (they run side by
// side). The run's seed replaces the seeds of the timeline and the
// nemesis.
type Faults struct {
	Timeline *faults.Timeline `json:"timeline,omitempty"`
	Nemesis  *faults.Nemesis  `json:"nemesis,omitempty"`
	// Schedule is a fault schedule of a program's own: any
	// faults.Schedule. Its random choices should come from the run's
	// seed (faults.Env.Seed; Env.Inject resolves targets from it). It
	// is a Go value, which JSON cannot carry: ScheduleName stands for it
	// in scenario.json and result.json, and a run of it replays only
	// through the program that has it — a program built on simrun.Main
	// with this scenario among its own finds it by the scenario's name,
	// as it finds its own recipes. A Timeline or Nemesis goes in its own
	// field instead, where result files carry it.
	Schedule faults.Schedule `json:"-"`
	// ScheduleName names Schedule in reports and result files: lower-case
	// letters, digits and '-'. It is required with Schedule; without it,
	// it says which schedule the scenario needs.
	ScheduleName string `json:"schedule,omitempty"`
}

// IsZero reports whether there are no faults.
func (f Faults) IsZero() bool {
	return f.Timeline == nil && f.Nemesis == nil && f.Schedule == nil && f.ScheduleName == ""
}

// Check names a checker and its options.
type Check struct {
	// Name is the checker's name: one of checker.Checker* ("mutual-exclusion", …).
	Name checker.Name `json:"name"`
	// Bound is the liveness or convergence bound; 0 means the checker's
	// default.
	Bound Duration `json:"bound,omitempty"`
	// ResourceOnly judges mutual exclusion by the guarded resource alone,
	// not by overlapping holds (see checker.MutexOptions).
	ResourceOnly bool `json:"resource_only,omitempty"`
	// ByChecks judges mutual exclusion by the holders' checks: a hold ends
	// at the last step its holder began (see checker.MutexOptions). The
	// explorer sets it for holders that ask their recipe whether they
	// hold (Workload.OwnerCheck "read").
	ByChecks bool `json:"by_checks,omitempty"`
}

// withDefaults fills every zero field that has a default.
func (s Scenario) withDefaults() Scenario {
	if s.Version == 0 {
		s.Version = SchemaVersion
	}
	s = s.withCommand()
	if s.Cluster.Members == 0 {
		s.Cluster.Members = 3
	}
	if s.Cluster.Clock == cluster.ClockDefault && (s.Cluster.RealClock != "" || s.Cluster.MemberBinaries) {
		s.Cluster.Clock = cluster.ClockReal
	}
	if s.Cluster.Clock == cluster.ClockDefault {
		s.Cluster.Clock = DefaultClock
	}
	w := &s.Workload
	f := familyOf(w.Family)
	if w.Clients == 0 {
		w.Clients = 3
	}
	if w.Observers == 0 && f != nil {
		w.Observers = f.observers
	}
	if w.Duration == 0 {
		w.Duration = Duration(8 * time.Second)
	}
	if w.Think == 0 {
		w.Think = Duration(50 * time.Millisecond)
	}
	if w.Hold == 0 {
		w.Hold = Duration(100 * time.Millisecond)
	}
	if w.TTL == 0 {
		w.TTL = Duration(time.Second)
	}
	if w.Patience == 0 {
		w.Patience = 2 * w.TTL
	}
	if w.Key == "" && f != nil {
		w.Key = f.key
	}
	if f != nil && f.defaults != nil {
		f.defaults(w)
	}
	if s.Checkers == nil {
		s.Checkers = DefaultCheckers(w.Family)
	}
	s.Cluster.Auth = s.Cluster.Auth.withDefaults(s)
	return s
}
