package scenarios

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/program"
)

// realClockProcess is Cluster.RealClock's reason for a scenario whose
// recipe runs in other processes.
const realClockProcess = "a recipe in another process dials etcd through real sockets"

// withCommand ties Workload.Command and the recipe value of a process
// recipe together: a value with a command records it in workload.command,
// and a workload.command read from JSON with no value builds the value
// (program.Lock, program.Election) — so a replay, a child run and a
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
	r := program.Lock(name, argv...)
	w.Lock = &r
}

func electionCommand(w *Workload, name string, argv []string) {
	r := program.Election(name, argv...)
	w.Election = &r
}

func rwmutexCommand(w *Workload, name string, argv []string) {
	r := program.RWMutex(name, argv...)
	w.RWMutex = &r
}

func queueCommand(w *Workload, name string, argv []string) {
	r := program.Queue(name, argv...)
	w.Queue = &r
}

func barrierCommand(w *Workload, name string, argv []string) {
	r := program.Barrier(name, argv...)
	w.Barrier = &r
}

func plainBarrierCommand(w *Workload, name string, argv []string) {
	r := program.PlainBarrier(name, argv...)
	w.PlainBarrier = &r
}

func registerCommand(w *Workload, name string, argv []string) {
	r := program.Register(name, argv...)
	w.Register = &r
}

func stmCommand(w *Workload, name string, argv []string) {
	r := program.STM(name, argv...)
	w.STM = &r
}

// discoveryCommand puts the program in the slot, registrar or resolver,
// whose recipe name the registries do not have — the one under test; in
// both if neither is registered, the program then serving both roles.
func discoveryCommand(w *Workload, _ string, argv []string) {
	if _, err := discovery.LookupRegistrar(w.Recipe); err != nil && w.Registrar == nil {
		r := program.Registrar(w.Recipe, argv...)
		w.Registrar = &r
	}
	if _, err := discovery.LookupResolver(w.Resolver); err != nil && w.ResolverRecipe == nil && w.Resolver != "" {
		r := program.Resolver(w.Resolver, argv...)
		w.ResolverRecipe = &r
	}
}

// WithCommand is s with a recipe called name whose every client is a
// process running argv (package program), in place of the
// recipe under test: the one the scenario's name names ("lock/mutex/…"
// names the lock; "discovery/relisting/…" the resolver). The scenario is
// renamed after it and expects a pass, as With… does. A family that
// cannot run a recipe in another process is an error.
func (s Scenario) WithCommand(name string, argv []string) (Scenario, error) {
	f := familyOf(s.Workload.Family)
	switch {
	case f == nil || f.command == nil || len(f.slots) == 0:
		return s, fmt.Errorf("scenarios: %s: the %s family cannot run a recipe in another process", s.Name, s.Workload.Family)
	case len(argv) == 0 || argv[0] == "":
		return s, fmt.Errorf("scenarios: %s: a command names the program to run first, and %q does not", s.Name, argv)
	}
	under := f.slots[0]
	if parts := strings.Split(s.Name, "/"); len(parts) == 3 {
		for _, sl := range f.slots {
			if sl.named(s.Workload) == parts[1] {
				under = sl
				break
			}
		}
	}
	w := &s.Workload
	for _, sl := range f.slots {
		sl.carry(w, Workload{}) // the program replaces the values the scenario had
	}
	if under.resolver {
		w.Resolver = name
	} else {
		w.Recipe = name
	}
	f.command(w, name, argv)
	return s.reuse(name, checker.Expectation{}, under.resolver), nil
}

// prestart starts the program of a scenario with a workload.command once
// for every client and waits until each says it is ready, before the run's
// clock and its faults start: a program that loads slowly does not eat
// into the run (program.Prestart). A program that is never ready is an
// error naming the client and the program.
// Each program's stderr is kept whole in stderrDir, if it is not "".
func (s Scenario) prestart(ctx context.Context, c *cluster.Cluster, stderrDir string) (*program.Started, error) {
	if len(s.Workload.Command) == 0 {
		return nil, nil
	}
	clis := make(map[string]*clientv3.Client)
	for _, name := range s.clientNames() {
		cli, err := c.Client(name)
		if err != nil {
			return nil, err
		}
		clis[name] = cli
	}
	return program.Prestart(ctx, program.Config{Argv: s.Workload.Command, StderrDir: stderrDir}, clis)
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
// its recipe value v does (faults.Program), so that pauses freeze the
// process and its breaking the protocol is recorded as the client's crash.
func attachProcess(env *faults.Env, client string, v any) {
	if p, ok := v.(faults.Program); ok {
		env.AttachProgram(client, p)
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

// programsDir is where a run whose directory is out keeps its programs'
// stderr, one file per program (program.Config.StderrDir); "" (nowhere)
// when the run writes no files.
func programsDir(out string) string {
	if out == "" {
		return ""
	}
	return filepath.Join(out, "programs")
}

// whyEnded says why a recipe value's channel closed, as ": …" to add to
// the message, when the value can say (a recipe in another process says
// why its program is gone or its init failed, with the end of its
// stderr); "" otherwise.
func whyEnded(v any) string {
	if e, ok := v.(interface{ Err() error }); ok {
		if err := e.Err(); err != nil {
			return ": " + err.Error()
		}
	}
	return ""
}
