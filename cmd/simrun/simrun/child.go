package simrun

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/bubble"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// The child side of a run in its own process. simrun (or a program built
// with Main) starts its own binary as
//
//	<binary> __run -out DIR [-replay CMD]
//
// which runs the scenario in DIR/scenario.json into DIR and exits. It is
// not a command for people, and help does not list it.
const childCommand = "__run"

// The files a child and its parent share in the run's directory, beside
// scenario.json (the job, written by the parent), result.json and
// history.json (written by the child), which package results owns.
const (
	childPIDFile     = "child.pid"         // the child's process id, written first
	childLogFile     = "child.log"         // the child's stderr — what the run's libraries log — a panic's trace included
	childStdoutFile  = "stdout.log"        // the child's stdout, which only a recipe writing to it directly fills
	harnessErrorFile = "harness-error.txt" // why the child has no result
	processFile      = "process.json"      // the child's procStats once its cluster had closed
	frozenStacksFile = "frozen-stacks.txt" // every goroutine's stack when the run's virtual clock froze
	stuckStacksFile  = "stuck-stacks.txt"  // the stacks of the goroutines a run's bubble was left with
	stoppingFile     = "stopping.txt"      // how far the run got, if told to stop it had not ended a second later
)

// exitHarness is a child's exit code when its run's harness failed; it
// has written why to harness-error.txt. Exit code 0 means it wrote
// result.json and history.json, whatever the verdict.
const exitHarness = 3

// exitRecipe is a child's exit code when the run's recipe could not be used
// (scenarios.ErrRecipe); harness-error.txt says why.
const exitRecipe = 4

// runChildCommand runs one scenario as a child of a simrun that runs each
// run in its own process, and returns the exit code: 0 with result.json
// and history.json written; exitHarness or exitInterrupted with
// harness-error.txt written; anything else (a panic's 2) is a crash.
func runChildCommand(e *env, args []string) int {
	fs := flag.NewFlagSet("simrun "+childCommand, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	out := fs.String("out", "", "the run's directory, holding "+results.ScenarioFile)
	replay := fs.String("replay", "", "the command that replays the run")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "simrun %s: usage: simrun %s -out DIR [-replay CMD]\n", childCommand, childCommand)
		return exitUsage
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(e.stderr, "simrun %s: %v\n", childCommand, err)
		if werr := os.WriteFile(filepath.Join(*out, harnessErrorFile), []byte(err.Error()+"\n"), 0o644); werr != nil {
			fmt.Fprintf(e.stderr, "simrun %s: %v\n", childCommand, werr)
		}
		return code
	}
	tuneChildGC(os.Getenv)
	if err := os.WriteFile(filepath.Join(*out, childPIDFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fail(exitHarness, err)
	}
	s, err := childScenario(filepath.Join(*out, results.ScenarioFile), e.all())
	if err != nil {
		return fail(exitHarness, err)
	}
	frozen := func(err error) {
		// The bubble cannot be unblocked: record why, with every
		// goroutine's stack, and end the process.
		var f *bubble.Frozen
		if errors.As(err, &f) {
			os.WriteFile(filepath.Join(*out, frozenStacksFile), []byte(f.Stacks), 0o644) //nolint:errcheck // the reason below matters more
			err = fmt.Errorf("%w: %w; every goroutine's stack is in %s", scenarios.ErrHarness, err, frozenStacksFile)
		}
		os.Exit(fail(exitHarness, err))
	}
	ended := sayProgressWhenStopped(e.ctx, *out, e.stderr)
	_, err = scenarios.Run(e.ctx, s, scenarios.Options{Out: *out, Replay: *replay, OnFrozen: frozen})
	ended()
	if b, jerr := json.Marshal(sampleProc()); jerr == nil {
		os.WriteFile(filepath.Join(*out, processFile), b, 0o644) //nolint:errcheck // the stats are optional
	}
	if err != nil {
		if e.ctx.Err() != nil {
			return fail(exitInterrupted, err)
		}
		if errors.Is(err, scenarios.ErrRecipe) {
			return fail(exitRecipe, err)
		}
		var stuck *bubble.Stuck
		if errors.As(err, &stuck) {
			os.WriteFile(filepath.Join(*out, stuckStacksFile), []byte(stuck.Stacks), 0o644) //nolint:errcheck // the reason matters more
			err = fmt.Errorf("%w; the stacks of the goroutines left are in %s", err, stuckStacksFile)
		}
		return fail(exitHarness, err)
	}
	return exitOK
}

// childScenario reads the scenario a child is to run.
//
// A scenario crosses the process boundary as JSON, and JSON cannot carry a
// program's own recipe (the recipe values of Workload are json:"-") or
// fault schedule (Faults.Schedule). The child is the same
// binary as its parent, started with the same extra scenarios, so it takes
// those values from the scenario of the same name among the registered and
// extra ones, as replay does; every other field comes from the JSON, so
// seeds, -duration, -members and a campaign's overrides hold. The recipe
// and the schedule must be the ones the JSON names: a program whose
// scenarios differ from run to run is an error, not a run of some other
// recipe or schedule.
func childScenario(path string, all []scenarios.Scenario) (scenarios.Scenario, error) {
	s, err := results.ReadScenario(path)
	if err != nil {
		return scenarios.Scenario{}, fmt.Errorf("%w: %w", scenarios.ErrHarness, err)
	}
	if own, ok := find(all, s.Name); ok {
		if own.Workload.Recipe != s.Workload.Recipe {
			return scenarios.Scenario{}, fmt.Errorf("%w: %s: scenario %s runs recipe %q here, but %q in the parent",
				scenarios.ErrHarness, path, s.Name, own.Workload.Recipe, s.Workload.Recipe)
		}
		if own.Workload.ResolverRecipe != nil && own.Workload.ResolverRecipe.Name != s.Workload.Resolver {
			return scenarios.Scenario{}, fmt.Errorf("%w: %s: scenario %s runs resolver %q here, but %q in the parent",
				scenarios.ErrHarness, path, s.Name, own.Workload.ResolverRecipe.Name, s.Workload.Resolver)
		}
		if name := s.Faults.ScheduleName; name != "" && own.Faults.ScheduleName != name {
			return scenarios.Scenario{}, fmt.Errorf("%w: %s: scenario %s runs fault schedule %q here, but %q in the parent",
				scenarios.ErrHarness, path, s.Name, own.Faults.ScheduleName, name)
		}
		withOwnRecipe(&s, own)
	}
	return s, nil
}

// withOwnRecipe gives s the recipe values of own, a scenario of the same
// name this program has, and its fault schedule if s names it: what a
// scenario's JSON cannot hold. A schedule s does not name — a campaign's
// override replaced it — stays out.
func withOwnRecipe(s *scenarios.Scenario, own scenarios.Scenario) {
	s.Workload.CarryRecipes(own.Workload)
	if s.Faults.ScheduleName != "" && s.Faults.ScheduleName == own.Faults.ScheduleName {
		s.Faults.Schedule = own.Faults.Schedule
	}
	ownCustomFaults(s, own)
}

// ownCustomFaults gives the Custom faults of s's timeline, which JSON
// carries by name only (faults.Fault.NameOnly), their functions back from
// own, the program's scenario of the same name: a step or trigger whose
// fault is known by name takes own's fault of the same name. One own does
// not have stays by name, and fails its step when it fires, saying so.
func ownCustomFaults(s *scenarios.Scenario, own scenarios.Scenario) {
	tl, otl := s.Faults.Timeline, own.Faults.Timeline
	if tl == nil || otl == nil {
		return
	}
	byName := map[string]faults.Fault{}
	for _, st := range otl.Steps {
		if st.Fault.IsCustom() && !st.Fault.NameOnly() {
			byName[st.Fault.String()] = st.Fault
		}
	}
	for _, tr := range otl.Triggers {
		if tr.Fault.IsCustom() && !tr.Fault.NameOnly() {
			byName[tr.Fault.String()] = tr.Fault
		}
	}
	if len(byName) == 0 {
		return
	}
	c := *tl // the JSON's timeline is s's own, but copy before changing it
	c.Steps = slices.Clone(tl.Steps)
	c.Triggers = slices.Clone(tl.Triggers)
	for i, st := range c.Steps {
		if f, ok := byName[st.Fault.String()]; ok && st.Fault.NameOnly() {
			c.Steps[i].Fault = f
		}
	}
	for i, tr := range c.Triggers {
		if f, ok := byName[tr.Fault.String()]; ok && tr.Fault.NameOnly() {
			c.Triggers[i].Fault = f
		}
	}
	s.Faults.Timeline = &c
}

// errNoChild is returned where child processes are not supported.
var errNoChild = errors.New("simrun: runs in child processes are supported on Linux only; use -inprocess")
