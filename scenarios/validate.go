package scenarios

import (
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/suggest"
	"github.com/etcdsim/etcdsim/lease"
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
	} else if s.Cluster.Clock == cluster.ClockVirtual && s.Cluster.MemberBinaries {
		bad("cluster.member_binaries runs members as binaries of their own on the real clock, but cluster.clock is virtual; use -clock real (cluster.clock \"real\") or leave member_binaries off")
	}
	if ka, kt := s.Cluster.ClientKeepAliveTime, s.Cluster.ClientKeepAliveTimeout; ka < 0 || kt < 0 {
		bad("cluster.client_keepalive_time %v and client_keepalive_timeout %v: neither may be negative (0 means no pings)", ka.D(), kt.D())
	} else if kt > 0 && ka == 0 {
		bad("cluster.client_keepalive_timeout is %v but client_keepalive_time is 0, which sends no pings to time out; set both", kt.D())
	}
	if g := s.Cluster.FeatureGates; g != "" {
		if err := cluster.ValidFeatureGates(g); err != nil {
			bad("cluster.feature_gates %q: %v", g, err)
		} else if s.Cluster.MemberBinaries {
			bad("cluster.feature_gates %q: member binaries take etcd's defaults; leave member_binaries off or feature_gates empty", g)
		}
	}
	w := s.Workload
	f := familyOf(w.Family)
	if f == nil {
		bad("workload.family %q: want one of %v", w.Family, suggest.Nearest(w.Family, Families()))
	}
	if w.Clients < 1 || w.Clients+w.Observers > maxClients {
		bad("workload.clients %d and observers %d: want at least 1 client and at most %d in all", w.Clients, w.Observers, maxClients)
	}
	if w.Observers < 0 {
		bad("workload.observers %d is negative", w.Observers)
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
	if f != nil {
		checkKnobs(f, w, bad)
		checkCommand(s, bad)
		if f.validate != nil {
			f.validate(s, bad)
		}
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
	s.validateAuth(bad)
	if err := s.Faults.checkSchedule(); err != nil {
		errs = append(errs, err)
	}
	members := memberNames(s.Cluster.Members)
	clients := s.clientNames()
	for _, sch := range s.schedules() {
		if err := faults.ValidateFor(sch, members, clients); err != nil {
			errs = append(errs, err) // it names the schedule's step or trigger
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

// CheckScheduleLength reports every timeline step that ends after the
// workload does, and a timeline end past it: the schedule is stopped when
// the workload ends, so such a step never fires, or is healed early, and
// the run is reported as one whose schedule did not run as written.
// Validate does not call it: a test or a shrink may end a run before its
// schedule on purpose. simrun refuses such a run where a user shortened it
// or wrote its faults (-duration, a campaign's overrides), before any
// cluster starts.
func (s Scenario) CheckScheduleLength() error {
	s = s.withDefaults()
	tl, d := s.Faults.Timeline, s.Workload.Duration.D()
	if tl == nil {
		return nil
	}
	var errs []error
	for i, st := range tl.Steps {
		if end := st.At + st.For; end > d {
			errs = append(errs, fmt.Errorf("faults.timeline step %d (%v) ends at %v, after the run's workload.duration %v: shorten the schedule or lengthen the run", i, st, end, d))
		}
	}
	if tl.End > d {
		errs = append(errs, fmt.Errorf("faults.timeline end %v is after the run's workload.duration %v", tl.End, d))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("scenarios: %s: %w", s.Name, err)
	}
	return nil
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
