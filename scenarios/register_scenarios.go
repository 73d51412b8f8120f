package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/recipes/register"
	"slices"
)

// FamilyRegister names the family.
const FamilyRegister = recipe.Register

// registerFamily: clients read and write a few keys through a
// client-side KV (recipes/register), and watchers follow them.
var registerFamily = family{
	name:       FamilyRegister,
	key:        "k",
	observers:  1,
	knobs:      []string{"serializable", "readers"},
	checkers:   []checker.Name{checker.CheckerRegisterLinearizable, checker.CheckerWatchGuarantees},
	command:    registerCommand,
	slots:      []slot{slotOf(FamilyRegister, "WithRegister", func(w *Workload) **register.Recipe { return &w.Register }, register.Lookup)},
	run:        (*world).registerWorkload,
	minClients: func(Workload) int { return 1 }, // one client's reads can go backwards
	safety:     []string{"RegisterSafety"},
	gallery: func() []Scenario {
		return slices.Concat(registerScenarios(), leasingScenarios(), orderingScenarios())
	},
}

// WithRegister is WithLock for a register family's client-side KV.
func (s Scenario) WithRegister(r register.Recipe) Scenario {
	s.Workload.Register = &r
	return s.reuse(r.Name, r.Expect, false)
}

// RegisterSafety returns the scenarios a client-side KV — a cache, a
// proxy, a library's wrapper, or one of recipes/register's — must pass:
// three clients reading, writing, compare-and-swapping and deleting a few
// keys through it, and a watcher, under the standard fault mix, judged by
// RegisterLinearizable and WatchGuarantees. The network takes a
// millisecond a hop, so that a KV that retries in a loop spends time as it
// would on a real network (see leasingLatency).
func RegisterSafety(r register.Recipe) []Scenario {
	s := Scenario{
		Name: "register/" + r.Name + "/standard-mix",
		Description: r.Name + ": reads, writes, compare-and-swaps, deletes and a watcher under a leader kill, a minority partition, " +
			"a client cut off, a leader storm and a compaction: linearizable, and the watch misses nothing",
		Cluster:  Cluster{Members: 3, Latency: leasingLatency},
		Workload: Workload{Family: FamilyRegister, Recipe: r.Name, Clients: 3, Observers: 1, Duration: Duration(8 * time.Second)},
		Faults:   Faults{Timeline: standardMix()},
		Seed:     1,
	}
	if r.Family == "" || !slices.ContainsFunc(slices.Concat(register.Recipes(), register.UpstreamRecipes()), func(x register.Recipe) bool { return x.Name == r.Name }) {
		rr := r
		s.Workload.Register = &rr
	}
	return []Scenario{s.recordCommand()}
}

// registerScenarios are the register family's registered scenarios: etcd's
// own KV API — reads, writes, compare-and-swaps, deletes and a watcher —
// under the standard fault mix, expecting a pass; and the same workload
// reading serializably while a member is cut off, where a read answered
// from the cut-off member's stale copy is not linearizable.
func registerScenarios() []Scenario {
	base := Scenario{
		Cluster:  Cluster{Members: 3},
		Workload: Workload{Family: FamilyRegister, Clients: 3, Observers: 1, Duration: Duration(8 * time.Second)},
		Seed:     1,
	}

	mix := base
	mix.Name = "register/kv/standard-mix"
	mix.Description = "reads, writes, compare-and-swaps, deletes and a watcher under a leader kill, a minority partition, a client cut off, a leader storm and a compaction: linearizable, and the watch misses nothing"
	mix.Faults.Timeline = standardMix()
	mix.Checkers = DefaultCheckers(FamilyRegister)

	stale := base
	stale.Name = "register/serializable/partition-minority"
	stale.Description = "serializable reads while a member is cut off from the others: the member answers from its stale copy, and the reads are not linearizable"
	stale.Workload.Serializable = true
	// A write that reaches the cut-off member waits for a leader it will
	// not get: a short patience sends the client on to its next operation.
	stale.Workload.Patience = Duration(500 * time.Millisecond)
	stale.Workload.Duration = Duration(5 * time.Second)
	stale.Faults.Timeline = &faults.Timeline{Steps: []faults.Step{
		faults.At(time.Second, 3*time.Second, faults.Partition(faults.Minority)),
	}}
	stale.Checkers = []Check{{Name: checker.CheckerRegisterLinearizable}}
	stale.Expect = checker.Expectation{Checker: checker.CheckerRegisterLinearizable, Violation: checker.ViolationNotLinearizable}

	return []Scenario{mix, stale}
}
