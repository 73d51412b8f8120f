package scenarios

import (
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/scenarios/process"
)

// realClockProcess is Cluster.RealClock's reason for a scenario whose
// recipe runs in other processes.
const realClockProcess = "a recipe in another process dials etcd through real sockets"

// withCommand ties Workload.Command and the recipe value of a process
// recipe together: a value with a command records it in workload.command,
// and a workload.command read from JSON with no value builds the value
// (process.Lock, process.Election) — so a replay, a child run and a
// campaign start the same program. Either way the scenario needs the real
// clock, and says why.
func (s Scenario) withCommand() Scenario {
	w := &s.Workload
	f := familyOf(w.Family)
	if f == nil {
		return s
	}
	for _, sl := range f.slots {
		if cmd := sl.command(*w); len(cmd) > 0 && len(w.Command) == 0 {
			w.Command = cmd
		}
	}
	if len(w.Command) == 0 {
		return s
	}
	if f.command != nil && len(f.slots) > 0 {
		if _, _, ok := f.slots[0].own(*w); !ok {
			f.command(w, w.Recipe, w.Command)
		}
	}
	if s.Cluster.RealClock == "" {
		s.Cluster.RealClock = realClockProcess
	}
	return s
}

// lockCommand and electionCommand are the lock and election families'
// command: a process recipe in their slot.
func lockCommand(w *Workload, name string, argv []string) {
	r := process.Lock(name, argv...)
	w.Lock = &r
}

func electionCommand(w *Workload, name string, argv []string) {
	r := process.Election(name, argv...)
	w.Election = &r
}

// checkCommand reports a workload.command a family cannot run.
func checkCommand(s Scenario, bad func(format string, args ...any)) {
	w := s.Workload
	f := familyOf(w.Family)
	if len(w.Command) == 0 || f == nil {
		return
	}
	if f.command == nil {
		var takers []string
		for _, g := range families {
			if g.command != nil {
				takers = append(takers, g.name)
			}
		}
		bad("workload.command: the %s family cannot run a recipe in another process; the %v families can", w.Family, takers)
	}
	if w.Command[0] == "" {
		bad("workload.command %q: the first element is the program to run, and it is empty", w.Command)
	}
	if w.Recipe == "" {
		bad("workload.command is set, but workload.recipe is empty: name the recipe the program is, as reports show it")
	}
}

// attachProcess tells env that client runs in a process of its own when
// its recipe value v does (faults.OSProcess), so that pauses freeze the
// process and its breaking the protocol is recorded as the client's crash.
func attachProcess(env *faults.Env, client string, v any) {
	if p, ok := v.(faults.OSProcess); ok {
		env.AttachProcess(client, p)
	}
}

// recordCommand gives s the workload.command of the recipe value it
// holds, and its need of the real clock — or neither, for a recipe in Go
// — so that a scenario written to JSON before it runs names its program.
// The constructors and the With… methods call it.
func (s Scenario) recordCommand() Scenario {
	s.Workload.Command = nil
	if s.Cluster.RealClock == realClockProcess {
		s.Cluster.RealClock = ""
	}
	return s.withCommand()
}
