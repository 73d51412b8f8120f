package simrun

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

var replayCommand = &command{
	name:    "replay",
	usage:   "[-out DIR] [-inprocess] RESULT.json",
	summary: "run a result's scenario and seed again; exit 0 if it met (or missed) its expectation as before, 1 if not",
	flags: func(fs *flag.FlagSet) {
		fs.String("out", "", "directory for the new run's files (default replay/ beside RESULT.json)")
		fs.Bool("inprocess", defaultInProcess(), inProcessUsage)
	},
}

// inProcessUsage is replay's -inprocess flag's.
const inProcessUsage = "run in this process (what the run's libraries log to standard error then goes to the run's " + childLogFile + " while it runs) rather than in a child process whose " +
	"standard error (what they log) goes to the run's " + childLogFile + " and whose standard output to its " + childStdoutFile + " (default: in a test binary)"

func init() { replayCommand.run = runReplay }

func runReplay(e *env, args []string) (int, error) {
	var out string
	var inProcess bool
	pos, err := e.parseFlags(replayCommand, args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "directory for the new run's files (default replay/ beside RESULT.json)")
		fs.BoolVar(&inProcess, "inprocess", defaultInProcess(), inProcessUsage)
	})
	if err != nil {
		return exitUsage, err
	}
	if len(pos) != 1 {
		return exitUsage, usagef("name one result.json (got %d arguments)", len(pos))
	}
	path := pos[0]
	before, err := results.ReadResult(path)
	if err != nil {
		return exitUsage, configErr(err)
	}
	s := before.Scenario
	// A program's own recipe is not in the JSON: take it from the
	// scenario of the same name this program registered.
	if own, ok := find(e.extra, s.Name); ok {
		withOwnRecipe(&s, own)
	}
	if err := s.Validate(); err != nil {
		return exitUsage, configErr(fmt.Errorf("%s: %w", path, err))
	}
	if out == "" {
		out = filepath.Join(filepath.Dir(path), "replay")
	}
	if err := writable(out); err != nil {
		return exitUsage, configErr(err)
	}
	r := runner{inProcess: inProcess, replay: e.replayCommand, hard: e.hardDone()}
	if !inProcess {
		exe, err := os.Executable()
		if err != nil {
			return exitUsage, configErr(fmt.Errorf("finding this program's binary for the child process: %w; use -inprocess", err))
		}
		r.exe = exe
	}
	where := fmt.Sprintf("in a child process: what its libraries log goes to %s, what it writes to standard output to %s",
		filepath.Join(out, childLogFile), filepath.Join(out, childStdoutFile))
	if inProcess {
		where = "in this process, whose standard error its libraries share"
		if stderrMovable {
			where = fmt.Sprintf("in this process: what its libraries log to standard error goes to %s until it ends", filepath.Join(out, childLogFile))
		}
	}
	fmt.Fprintf(e.stderr, "simrun: replaying %s seed %s into %s, %s\n", s.Name, s.Seed, out, where)
	now, err := r.replayRun(e.ctx, s, out, e.replayCommand(path))
	if err != nil {
		if e.ctx.Err() != nil {
			return exitInterrupted, fmt.Errorf("interrupted: %w", err)
		}
		return exitMissed, err
	}
	fmt.Fprintf(e.stdout, "before: %s (%s): %s\n", metText(before.Met), before.Verdict, before.Why)
	fmt.Fprintf(e.stdout, "now:    %s (%s): %s\n", metText(now.Met), now.Verdict, now.Why)
	for _, f := range now.RecipeFaults {
		fmt.Fprintf(e.stdout, "        the recipe's fault: %s\n", f)
	}
	for _, f := range now.NotApplied() {
		fmt.Fprintf(e.stdout, "        fault not applied: %s\n", f)
	}
	if now.Met != before.Met {
		fmt.Fprintf(e.stdout, "NOT reproduced: %s seed %s\n", s.Name, s.Seed)
		return exitMissed, nil
	}
	fmt.Fprintf(e.stdout, "reproduced: %s seed %s\n", s.Name, s.Seed)
	return exitOK, nil
}

func metText(met bool) string {
	if met {
		return "met its expectation"
	}
	return "missed its expectation"
}

// replayRun runs s into out, in a child process or in this one as r says,
// and returns its result. Unlike a batch's run directory, out is not
// emptied first: it may be a directory of the caller's.
func (r runner) replayRun(ctx context.Context, s scenarios.Scenario, out, replay string) (*scenarios.Result, error) {
	if r.inProcess {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
		restore, _, err := libraryStderrTo(filepath.Join(out, childLogFile))
		if err != nil {
			return nil, err
		}
		defer restore()
		rctx, cancel := context.WithTimeout(ctx, budget(s))
		defer cancel()
		return scenarios.Run(rctx, s, scenarios.Options{Out: out, Replay: replay})
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	if err := results.WriteScenario(filepath.Join(out, results.ScenarioFile), s); err != nil {
		return nil, err
	}
	for _, f := range []string{results.ResultFile, results.HistoryFile, harnessErrorFile} {
		os.Remove(filepath.Join(out, f)) // an earlier replay's, which the child's must not be taken for
	}
	res, _, err := r.runChild(ctx, job{scenario: s}, out, replay, budget(s))
	return res, err
}
