package scenarios

import (
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/suggest"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/lock/barrier"
	"github.com/etcdsim/etcdsim/lock/lease"
	"github.com/etcdsim/etcdsim/lock/queue"
	"github.com/etcdsim/etcdsim/lock/rwmutex"
)

// maxMembers, maxClients and maxWrites bound what one run may start.
const (
	maxMembers = 9
	maxClients = 64
	maxWrites  = 1000
)

// Validate reports, before any cluster starts, every reason s cannot run:
// an unknown family, recipe or checker (with the valid names, the closest
// first), contradictory settings, a fault aimed at a member or client the
// run will not have, an expectation no checker of the run can meet.
func (s Scenario) Validate() error {
	s = s.withDefaults()
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if s.Name == "" {
		bad("name is empty: give the scenario a name such as lock/mutex/leader-kill")
	}
	if s.Version > SchemaVersion {
		bad("version %d is newer than this etcdsim's %d", s.Version, SchemaVersion)
	}
	if s.Cluster.Members < 1 || s.Cluster.Members > maxMembers {
		bad("cluster.members %d: want 1 to %d", s.Cluster.Members, maxMembers)
	}
	if err := s.Cluster.Clock.Validate(); err != nil {
		bad("cluster.clock: %v", err)
	} else if s.Cluster.Clock == cluster.ClockVirtual && s.Cluster.RealClock != "" {
		bad("cluster.clock is virtual, but this scenario needs the real clock: %s; run it with -clock real (cluster.clock \"real\")", s.Cluster.RealClock)
	}
	w := s.Workload
	if !slices.Contains(Families(), w.Family) {
		bad("workload.family %q: want one of %v", w.Family, suggest.Nearest(w.Family, Families()))
	}
	if w.Clients < 1 || w.Clients+w.Observers > maxClients {
		bad("workload.clients %d and observers %d: want at least 1 client and at most %d in all", w.Clients, w.Observers, maxClients)
	}
	if w.Observers < 0 {
		bad("workload.observers %d is negative", w.Observers)
	}
	if w.Family == FamilyElection && w.Clients < 2 && s.Expect.Violation == checker.ViolationTwoLeaders {
		bad("workload.clients %d: two leaders need at least 2 candidates", w.Clients)
	}
	for _, d := range []struct {
		name string
		v    Duration
	}{{"duration", w.Duration}, {"think", w.Think}, {"think_jitter", w.ThinkJitter}, {"hold", w.Hold}, {"patience", w.Patience}, {"stagger", w.Stagger}} {
		if d.v < 0 {
			bad("workload.%s %v is negative", d.name, d.v)
		}
	}
	if w.Ops < 0 {
		bad("workload.ops %d is negative", w.Ops)
	}
	if w.Writes != 0 && w.Family != FamilyLock && w.Family != FamilyPlainBarrier {
		bad("workload.writes is for the lock and plain-barrier families only, not %s", w.Family)
	}
	if w.Stagger != 0 && w.Family != FamilyBarrier {
		bad("workload.stagger is for the barrier family only, not %s", w.Family)
	}
	if w.Family != FamilyLock {
		for _, f := range []struct {
			name string
			set  bool
		}{{"threads", w.Threads != 0}, {"pinned", w.Pinned}, {"owner_check", w.OwnerCheck != ""}} {
			if f.set {
				bad("workload.%s is for the lock family only, not %s", f.name, w.Family)
			}
		}
	} else {
		if w.Threads < 1 || w.Clients*w.Threads > maxClients {
			bad("workload.threads %d: want 1 to %d threads in all (%d clients)", w.Threads, maxClients, w.Clients)
		}
		if w.Writes < 1 || w.Writes > maxWrites {
			bad("workload.writes %d: want 1 to %d writes per hold", w.Writes, maxWrites)
		}
		if w.OwnerCheck != OwnerCheckDone && w.OwnerCheck != OwnerCheckRead {
			bad("workload.owner_check %q: want %q or %q", w.OwnerCheck, OwnerCheckDone, OwnerCheckRead)
		}
	}
	if (w.Producers != 0 || w.Priorities != 0) && w.Family != FamilyQueue {
		bad("workload.producers and workload.priorities are for the queue family only, not %s", w.Family)
	} else if w.Family == FamilyQueue {
		if w.Producers < 0 || w.Producers >= w.Clients || w.Clients < 2 {
			bad("workload.producers %d: want 1 to workload.clients-1 (%d clients; 0 means half), so that someone consumes", w.Producers, w.Clients)
		}
		if w.Priorities < 0 || w.Priorities > 1<<16 {
			bad("workload.priorities %d: want 0 (a FIFO queue) to 65536", w.Priorities)
		}
	}
	if w.Serializable && w.Family != FamilyRegister {
		bad("workload.serializable is for the register family only, not %s", w.Family)
	}
	if w.Readers != 0 && w.Family != FamilyRegister && w.Family != FamilyRWMutex {
		bad("workload.readers is for the register and rwmutex families only, not %s", w.Family)
	}
	if w.Readers < 0 || w.Readers > w.Clients {
		bad("workload.readers %d: want 0 to workload.clients (%d)", w.Readers, w.Clients)
	}
	if err := lease.CheckTTL(w.TTL.D()); err != nil {
		bad("workload.ttl: %w", err)
	}
	if err := s.checkRecipe(); err != nil {
		errs = append(errs, err)
	}
	if err := s.checkRecipeValues(); err != nil {
		errs = append(errs, err)
	}
	for i, c := range s.Checkers {
		if err := (checker.Expectation{Checker: c.Name}).Validate(); err != nil {
			bad("checkers[%d]: %w", i, err)
		}
		if c.Bound < 0 {
			bad("checkers[%d] (%s): bound %v is negative", i, c.Name, c.Bound)
		}
	}
	if !s.Expect.Pass() {
		if err := s.Expect.Validate(); err != nil {
			bad("expect: %w", err)
		} else if !slices.ContainsFunc(s.Checkers, func(c Check) bool { return c.Name == s.Expect.Checker }) {
			bad("expect: %v, but the run's checkers (%v) do not include %s", s.Expect, checkNames(s.Checkers), s.Expect.Checker)
		}
	}
	if err := s.Faults.checkSchedule(); err != nil {
		errs = append(errs, err)
	}
	members := memberNames(s.Cluster.Members)
	clients := s.clientNames()
	for _, sch := range s.schedules() {
		if err := faults.ValidateFor(sch, members, clients); err != nil {
			bad("faults: %w", err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		name := s.Name
		if name == "" {
			name = "(unnamed)"
		}
		return fmt.Errorf("scenarios: %s: %w", name, err)
	}
	return nil
}

// checkRecipe reports a recipe the family's registry does not have.
func (s Scenario) checkRecipe() error {
	w := s.Workload
	var err error
	switch w.Family {
	case FamilyLock:
		if w.Lock == nil {
			_, err = lock.Lookup(w.Recipe)
		} else {
			err = w.Lock.Validate()
		}
	case FamilyElection:
		if w.Election == nil {
			_, err = election.Lookup(w.Recipe)
		} else {
			err = w.Election.Validate()
		}
	case FamilyDiscovery:
		if w.Registrar == nil {
			_, err = discovery.LookupRegistrar(w.Recipe)
		} else {
			err = w.Registrar.Validate()
		}
		var rerr error
		if w.ResolverRecipe == nil {
			_, rerr = discovery.LookupResolver(w.Resolver)
		} else {
			rerr = w.ResolverRecipe.Validate()
		}
		if rerr != nil {
			err = errors.Join(err, fmt.Errorf("workload.resolver: %w", rerr))
		}
	case FamilyRWMutex:
		if w.RWMutex == nil {
			_, err = rwmutex.Lookup(w.Recipe)
		} else {
			err = w.RWMutex.Validate()
		}
	case FamilyQueue:
		if w.Queue == nil {
			_, err = queue.Lookup(w.Recipe)
		} else {
			err = w.Queue.Validate()
		}
	case FamilyBarrier:
		if w.Barrier == nil {
			_, err = barrier.Lookup(w.Recipe)
		} else {
			err = w.Barrier.Validate()
		}
	case FamilyPlainBarrier:
		if w.PlainBarrier == nil {
			_, err = barrier.LookupPlain(w.Recipe)
		} else {
			err = w.PlainBarrier.Validate()
		}
	case FamilyRegister:
		err = checkRegisterKV(w.Recipe)
	case FamilySTM:
		_, err = stmIsolation(w.Recipe)
	}
	if err != nil {
		return fmt.Errorf("workload.recipe: %w", err)
	}
	return nil
}

// schedules returns the scenario's schedules with the run's seed.
func (s Scenario) schedules() []faults.Schedule {
	var out []faults.Schedule
	if tl := s.Faults.Timeline; tl != nil {
		t := *tl
		t.Seed = s.Seed
		out = append(out, t)
	}
	if n := s.Faults.Nemesis; n != nil {
		nm := *n
		nm.Seed = s.Seed + 1
		out = append(out, nm)
	}
	if own := s.Faults.Schedule; own != nil {
		out = append(out, own)
	}
	return out
}

// scheduleName is what a ScheduleName may be.
var scheduleName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// checkSchedule reports a program's own schedule without its name, a name
// without its schedule (a scenario read from JSON, run by a program that
// does not have it), a bad name, and a schedule that is data and belongs
// in its own field.
func (f Faults) checkSchedule() error {
	switch f.Schedule.(type) {
	case faults.Timeline, *faults.Timeline:
		return errors.New("faults.Schedule is a faults.Timeline: set faults.timeline instead, which result files carry and replay")
	case faults.Nemesis, *faults.Nemesis:
		return errors.New("faults.Schedule is a faults.Nemesis: set faults.nemesis instead, which result files carry and replay")
	}
	switch {
	case f.Schedule != nil && f.ScheduleName == "":
		return errors.New("faults.Schedule is set but faults.ScheduleName is empty: name the program's own schedule, e.g. \"leader-flaps\"; reports and result files know it by that name")
	case f.Schedule == nil && f.ScheduleName != "":
		return fmt.Errorf("faults.schedule %q is a fault schedule of a program's own, a Go value that JSON cannot carry: "+
			"run or replay this scenario with the program that has it (built on simrun.Main with the scenario among its own), "+
			"which finds it by the scenario's name", f.ScheduleName)
	case f.ScheduleName != "" && !scheduleName.MatchString(f.ScheduleName):
		return fmt.Errorf("faults.schedule %q: use lower-case letters, digits and '-', starting with a letter", f.ScheduleName)
	}
	return nil
}

// clientNames are the named clients the run creates: c1…cN, then the
// observers o1…oM.
func (s Scenario) clientNames() []string {
	var out []string
	for i := 1; i <= s.Workload.Clients; i++ {
		out = append(out, fmt.Sprintf("c%d", i))
	}
	for i := 1; i <= s.Workload.Observers; i++ {
		out = append(out, fmt.Sprintf("o%d", i))
	}
	return out
}

func memberNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("m%d", i)
	}
	return out
}

func checkNames(cs []Check) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c.Name)
	}
	return out
}
