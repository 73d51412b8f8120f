package simrun

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
	"github.com/etcdsim/etcdsim/seed"
)

var shrinkCommand = &command{
	name:    "shrink",
	usage:   "[-trials N] [-parallel P] [-out DIR] [-run-timeout D] [-inprocess] RESULT.json",
	summary: "cut a failing run down to the fewest, shortest faults, fewest clients and shortest run that still find its violation; write that scenario and its report",
	flags:   func(fs *flag.FlagSet) { new(shrinkFlags).register(fs) },
}

func init() { shrinkCommand.run = runShrink }

// shrinkFlags are shrink's flags: run's way of running, and the trials.
type shrinkFlags struct {
	trials     int
	parallel   int
	out        string
	inProcess  bool
	runTimeout time.Duration
}

func (f *shrinkFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.trials, "trials", 3, "runs of each candidate, with seeds seed, seed+1, …; it is kept only if every one finds the violation")
	fs.IntVar(&f.parallel, "parallel", defaultParallel(), "how many clusters run at once (each a few etcd members in a child process of its own)")
	fs.StringVar(&f.out, "out", "", "directory for the shrunk scenario, its report and every trial's run (default shrunk/ beside RESULT.json)")
	fs.BoolVar(&f.inProcess, "inprocess", defaultInProcess(),
		"run every run in this process, not each in a child process (for debugging; a run that hangs then holds up simrun)")
	fs.DurationVar(&f.runTimeout, "run-timeout", 0,
		"how long one run may take before it is killed and recorded as a harness failure (default its workload's duration plus 2m)")
}

func runShrink(e *env, args []string) (int, error) {
	var f shrinkFlags
	pos, err := e.parseFlags(shrinkCommand, args, f.register)
	if err != nil {
		return exitUsage, err
	}
	if len(pos) != 1 {
		return exitUsage, usagef("name one result.json (got %d arguments)", len(pos))
	}
	if f.trials < 1 {
		return exitUsage, usagef("-trials %d: want at least 1", f.trials)
	}
	path := pos[0]
	res, err := results.ReadResult(path)
	if err != nil {
		return exitUsage, configErr(err)
	}
	s := res.Scenario
	want, ok := shrinkTarget(res)
	if !ok {
		return exitUsage, configErr(fmt.Errorf("%s: the run of %s seed %s found no violation (%s): there is no failure to shrink",
			path, s.Name, s.Seed, res.Verdict))
	}
	// A program's own recipe is not in the JSON: take it from the
	// scenario of the same name this program registered.
	if own, ok := find(e.extra, s.Name); ok {
		withOwnRecipe(&s, own)
	}
	// Every candidate expects the violation the run found, so each of
	// its runs, and the scenario written at the end, meets its
	// expectation when it finds it again.
	s.Expect = want
	if err := s.Validate(); err != nil {
		return exitUsage, configErr(fmt.Errorf("%s: %w", path, err))
	}
	if f.out == "" {
		f.out = filepath.Join(filepath.Dir(path), "shrunk")
	}
	b := batchFlags{parallel: f.parallel, out: f.out, inProcess: f.inProcess, runTimeout: f.runTimeout}
	if err := b.check(e); err != nil {
		return exitUsage, err
	}
	if err := b.makeOut(); err != nil {
		return exitUsage, err
	}
	r := runner{inProcess: b.inProcess, timeout: b.runTimeout, replay: e.replayCommand, hard: e.hardDone()}
	if !r.inProcess {
		exe, err := os.Executable()
		if err != nil {
			return exitUsage, configErr(fmt.Errorf("finding this program's binary for the child processes: %w; use -inprocess", err))
		}
		r.exe = exe
	}
	sh := &shrinker{e: e, r: r, parallel: b.parallel, out: b.out, want: want, seeds: seeds(s.Seed, f.trials), events: res.Faults}
	return sh.run(path, s)
}

// shrinkTarget is the violation a shrink must keep: the one the
// scenario expected, if the run found it, and otherwise the first the
// run's checks found. Its kind is the kind found, so that another kind of
// violation of the same checker does not count as the same failure.
func shrinkTarget(res *scenarios.Result) (checker.Expectation, bool) {
	all := flattenChecks(res.Checks)
	if exp := res.Scenario.Expect; !exp.Pass() {
		for _, c := range all {
			if c.Checker != exp.Checker || c.Verdict != checker.VerdictViolation {
				continue
			}
			for _, v := range c.Violations {
				if exp.Violation == "" || v.Kind == exp.Violation {
					return checker.Expectation{Checker: c.Checker, Violation: v.Kind}, true
				}
			}
		}
	}
	for _, c := range all {
		if c.Verdict != checker.VerdictViolation || len(c.Parts) > 0 { // a combination's parts say which
			continue
		}
		var kind checker.ViolationKind
		if len(c.Violations) > 0 {
			kind = c.Violations[0].Kind
		}
		return checker.Expectation{Checker: c.Checker, Violation: kind}, true
	}
	return checker.Expectation{}, false
}

// flattenChecks returns rs and, after each, its parts.
func flattenChecks(rs []checker.Result) []checker.Result {
	var out []checker.Result
	for _, r := range rs {
		out = append(out, r)
		out = append(out, flattenChecks(r.Parts)...)
	}
	return out
}

// shrinker is one shrink under way.
type shrinker struct {
	e        *env
	r        runner
	parallel int
	out      string
	want     checker.Expectation
	// seeds are the trials' seeds, the original's first. Each trial of a
	// candidate runs with another seed rather than the same one again:
	// the clusters are real, so a seed never replays a run exactly
	// anyway, and a candidate that fails for several seeds — other
	// targets picked for roles such as Follower, other workload choices —
	// fails because of its schedule, not because of one lucky draw. The
	// first trial keeps the original's seed, so a candidate is at least
	// tried against the run it came from.
	seeds []seed.Seed
	// events are the original run's fault events.
	events []checker.FaultEvent
	tries  []tryRecord // guarded by nothing: one goroutine runs the shrink
	best   *tryRecord  // the last try kept
	t0     time.Time
}

// run shrinks s, the scenario of the failing run in input, and writes
// what it found.
func (sh *shrinker) run(input string, s scenarios.Scenario) (int, error) {
	e := sh.e
	sh.t0 = time.Now()
	where := "each in a child process"
	if sh.r.inProcess {
		where = "in this process"
	}
	fmt.Fprintf(e.stderr, "simrun shrink: %s seed %s found %v; looking for a smaller run that finds it in %d of %d trials (%s), %d at a time, %s, into %s\n",
		s.Name, s.Seed, sh.want, len(sh.seeds), len(sh.seeds), seedList(sh.seeds), sh.parallel, where, sh.out)
	rec := &shrinkRecord{Version: shrinkVersion, Input: input, Want: sh.want, Seeds: sh.seeds, Original: s}

	// The steps start when the run's nemesis fired them.
	start, err := s.NemesisAsTimeline(sh.events)
	if err != nil {
		return exitMissed, fmt.Errorf("%w; nothing was shrunk", err)
	}
	first := scenarios.Candidate{Change: "the original", Scenario: start}
	if s.Faults.Nemesis != nil {
		first.Change = "the original's nemesis written down as a timeline"
		fmt.Fprintf(e.stderr, "simrun shrink: the nemesis's faults, where its run of %v fired them:\n", s.Workload.Duration)
		for _, l := range start.Faults.Lines() {
			fmt.Fprintf(e.stderr, "\t%s\n", l)
		}
	}
	rec.Start = start
	ok, err := sh.fails(e.ctx, first)
	if e.ctx.Err() != nil {
		sh.writeRecord(rec, nil)
		return exitInterrupted, errors.New("interrupted before the original was confirmed; no scenario written")
	}
	if !ok {
		sh.writeRecord(rec, nil)
		why := fmt.Sprintf("the original does not find %v in every trial", sh.want)
		if s.Faults.Nemesis != nil {
			why = fmt.Sprintf("the nemesis's faults written down as a timeline, at the times its run fired them, do not find %v in every trial: "+
				"the run depended on what a timeline does not repeat, such as the nodes the nemesis picked for a role "+
				"or a holder or leader there to be hit at that moment", sh.want)
		}
		if err != nil {
			why += " (" + err.Error() + ")"
		}
		return exitMissed, fmt.Errorf("%s; nothing was shrunk (try fewer -trials, or shrink another failing run)", why)
	}

	best, serr := scenarios.Shrink(e.ctx, start, scenarios.ShrinkOptions{Fails: sh.fails})
	best.Description = shrunkDescription(s, sh.want)
	rec.Shrunk = &best
	code := exitOK
	if e.ctx.Err() != nil {
		code = exitInterrupted
		rec.Interrupted = true
		fmt.Fprintln(e.stderr, "simrun shrink: interrupted: writing the smallest failing run found so far")
	} else if serr != nil {
		return exitMissed, serr
	}
	files, werr := sh.write(best)
	sh.writeRecord(rec, werr)
	sh.summary(e.stdout, s, start, best, files)
	if werr != nil {
		return exitMissed, werr
	}
	if code == exitInterrupted {
		return code, errors.New("interrupted; the scenario written is the smallest found so far")
	}
	return code, nil
}

// shrunkDescription says what the shrunk scenario is.
func shrunkDescription(s scenarios.Scenario, want checker.Expectation) string {
	d := fmt.Sprintf("%s seed %s shrunk to what still finds %v", s.Name, s.Seed, want)
	if s.Description != "" {
		d += "; it was: " + s.Description
	}
	return d
}

// shrunkFiles are where the shrink's result went.
type shrunkFiles struct {
	scenario string // the shrunk scenario, as JSON
	run      string // the kept trial with the original's seed
	report   string // that run's page, "" if it could not be drawn
}

// write writes the shrunk scenario and renders the report of its run with
// the original's seed.
func (sh *shrinker) write(best scenarios.Scenario) (shrunkFiles, error) {
	var f shrunkFiles
	f.scenario = filepath.Join(sh.out, results.ScenarioFile)
	if err := results.WriteScenario(f.scenario, best); err != nil {
		return f, err
	}
	if sh.best == nil || sh.best.Run == "" {
		return f, nil
	}
	f.run = filepath.Join(sh.out, sh.best.Run)
	// The page is a view of the JSON: one that cannot be drawn is
	// reported, and changes nothing found.
	if err := renderReport(f.run); err != nil {
		fmt.Fprintf(sh.e.stderr, "simrun shrink: report: %v\n", err)
		return f, nil
	}
	f.report = reportPage(f.run)
	return f, nil
}
