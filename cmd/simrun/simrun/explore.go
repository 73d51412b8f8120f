package simrun

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/reports"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/seed"
)

var exploreCommand = &command{
	name:    "explore",
	usage:   "-family F -recipe R (-budget D | -runs N) [-seed S] [-shard i/n | -shard auto -shards N] [-parallel P] [-guided] [-until-found] [-shrink-runs N] -out DIR | -merge -out DIR SHARD-DIR...",
	summary: "search faults × timing × workload shape for draws a recipe fails, then shrink and group what it finds (docs/explore.md)",
	flags:   func(fs *flag.FlagSet) { new(exploreFlags).register(fs) },
}

func init() { exploreCommand.run = runExplore }

// exploreFlags are explore's flags.
type exploreFlags struct {
	family, recipe, seed, shard, out string
	shards, runs, parallel, shrink   int
	budget                           time.Duration
	guided, merge, untilFound        bool
}

func (f *exploreFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.family, "family", "", "the family: "+strings.Join(scenarios.ExploreFamilies(), ", "))
	fs.StringVar(&f.recipe, "recipe", "", "the recipe, by its name in the family's registry or among the program's own")
	fs.DurationVar(&f.budget, "budget", 0, "stop after this much wall time, such as 5m")
	fs.IntVar(&f.runs, "runs", 0, "stop after this many runs")
	fs.StringVar(&f.seed, "seed", "1", "the seed of the stream of draws, in decimal")
	fs.StringVar(&f.shard, "shard", "", "run only shard i/n of the stream (auto: JOB_COMPLETION_INDEX)")
	fs.IntVar(&f.shards, "shards", 0, "with -shard auto, the shard count (default SHARD_COUNT)")
	fs.IntVar(&f.parallel, "parallel", 1, "runs at once")
	fs.BoolVar(&f.guided, "guided", false, "keep and mutate the draws that reach behaviour not seen before (default: every draw afresh, which found the gallery's pitfalls as fast)")
	fs.IntVar(&f.shrink, "shrink-runs", 12, "runs spent shrinking each group of findings; negative: none")
	fs.StringVar(&f.out, "out", "", "the directory: explore.jsonl (resumed from if present), runs/, smallest/, findings.json, findings.md, findings.html")
	fs.BoolVar(&f.untilFound, "until-found", false, "stop at the first run that finds a violation (for a benchmark of time to first finding)")
	fs.BoolVar(&f.merge, "merge", false, "merge the findings of the shard directories named into -out")
}

func runExplore(e *env, args []string) (int, error) {
	var f exploreFlags
	pos, err := e.parseFlags(exploreCommand, args, f.register)
	if err != nil {
		return exitUsage, err
	}
	if f.out == "" {
		return exitUsage, usagef("-out is required")
	}
	if f.merge {
		if len(pos) == 0 {
			return exitUsage, usagef("-merge: name the shard directories to merge")
		}
		rep, err := scenarios.MergeExplore(f.out, pos...)
		if err != nil {
			return exitUsage, configErr(err)
		}
		return e.exploreDone(rep, f.out)
	}
	if len(pos) > 0 {
		return exitUsage, usagef("unexpected arguments %q (shard directories go with -merge)", pos)
	}
	sd, err := seed.Parse(f.seed)
	if err != nil {
		return exitUsage, usagef("-seed: %v", err)
	}
	sh, err := parseShard(f.shard, f.shards)
	if err != nil {
		return exitUsage, err
	}
	if f.parallel < 1 {
		return exitUsage, usagef("-parallel %d: want at least 1", f.parallel)
	}
	if f.runs == 0 && f.budget == 0 {
		return exitUsage, usagef("give a budget: -budget D or -runs N")
	}
	cfg := scenarios.ExploreConfig{Family: f.family, Recipe: f.recipe, Seed: sd, Runs: f.runs, Budget: f.budget,
		Shard: sh.Index, Shards: sh.Count, Guided: f.guided, UntilFound: f.untilFound, Parallel: f.parallel, ShrinkRuns: f.shrink, Out: f.out,
		Replay: e.prog}
	// A program's own recipe of that name: its scenario's workload carries
	// the value.
	for _, s := range e.extra {
		if s.Workload.Family == f.family && s.Workload.Recipe == f.recipe {
			cfg.Own = s.Workload
			break
		}
	}
	cfg.Progress = func(p scenarios.ExploreProgress) { fmt.Fprintln(e.stderr, p) }
	rep, err := scenarios.Explore(e.ctx, cfg)
	if errors.Is(err, scenarios.ErrExploreConfig) {
		return exitUsage, configErr(err)
	}
	if rep == nil {
		return exitMissed, err
	}
	code, derr := e.exploreDone(rep, f.out)
	if err != nil && e.ctx.Err() != nil {
		fmt.Fprintf(e.stderr, "simrun explore: interrupted; run the same command again to resume from %s\n", f.out)
		return exitInterrupted, nil
	}
	if err != nil {
		return exitMissed, err
	}
	return code, derr
}

// exploreDone renders the findings page and prints what an exploration
// found: 0 when nothing, 1 when the recipe broke or faulted.
func (e *env) exploreDone(rep *scenarios.ExploreReport, out string) (int, error) {
	if err := reports.RenderFindings(out); err != nil {
		// The JSON and Markdown are written; a page that could not be
		// drawn loses nothing.
		fmt.Fprintf(e.stderr, "simrun explore: %v\n", err)
	}
	fmt.Fprintf(e.stdout, "%d distinct ways %s %s breaks in %d runs (%d findings, %d draws could not apply, %d recipe faults, %d harness failures); %s\n",
		len(rep.Groups), rep.Family, rep.Recipe, rep.Total, rep.Findings, rep.NotApplicable, rep.RecipeFaults, rep.Harness, filepath.Join(out, reports.FindingsPage))
	if rep.FirstFinding > 0 {
		fmt.Fprintf(e.stdout, "first finding at run %d, %v into this sitting\n", rep.FirstFinding, rep.FirstFindingAfter.D().Round(time.Millisecond))
	}
	for i, g := range rep.Groups {
		fmt.Fprintf(e.stdout, "%d. %s %s (%d runs): %s\n   replay: %s\n", i+1, g.Judge, g.Kind, len(g.Runs), g.Sentence, g.Replay)
	}
	if rep.RecipeFaults > 0 {
		fmt.Fprintf(e.stdout, "%d runs recorded the recipe's own fault (a panic, a hang, a frozen clock, a failed close): explore.jsonl has each\n", rep.RecipeFaults)
	}
	if len(rep.Groups) > 0 || rep.Findings > 0 || rep.RecipeFaults > 0 {
		return exitMissed, nil
	}
	return exitOK, nil
}
