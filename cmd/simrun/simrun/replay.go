package simrun

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

var replayCommand = &command{
	name:    "replay",
	usage:   "[-out DIR] RESULT.json",
	summary: "run a result's scenario and seed again; exit 0 if it met (or missed) its expectation as before, 1 if not",
	flags: func(fs *flag.FlagSet) {
		fs.String("out", "", "directory for the new run's files (default replay/ beside RESULT.json)")
	},
}

func init() { replayCommand.run = runReplay }

func runReplay(e *env, args []string) (int, error) {
	var out string
	pos, err := e.parseFlags(replayCommand, args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "directory for the new run's files (default replay/ beside RESULT.json)")
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
	fmt.Fprintf(e.stderr, "simrun: replaying %s seed %s into %s\n", s.Name, s.Seed, out)
	ctx, cancel := context.WithTimeout(e.ctx, budget(s))
	defer cancel()
	now, err := scenarios.Run(ctx, s, scenarios.Options{Out: out, Replay: e.replayCommand(path)})
	if err != nil {
		if e.ctx.Err() != nil {
			return exitInterrupted, fmt.Errorf("interrupted: %w", err)
		}
		return exitMissed, err
	}
	fmt.Fprintf(e.stdout, "before: %s (%s): %s\n", metText(before.Met), before.Verdict, before.Why)
	fmt.Fprintf(e.stdout, "now:    %s (%s): %s\n", metText(now.Met), now.Verdict, now.Why)
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
