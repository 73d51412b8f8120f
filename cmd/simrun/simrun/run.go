package simrun

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
	"github.com/etcdsim/etcdsim/seed"
)

var runCommand = &command{
	name:    "run",
	usage:   "[-f FILE]... [-command 'PROGRAM ARG...' [-recipe NAME]] [-seed N] [-runs N] [-parallel P] [-ttl T|observed] [-duration D] [-members M] [-latency D] [-out DIR] [-run-timeout D] [-inprocess] [NAME...]",
	summary: "run the scenarios NAME... (exact names, prefixes such as lock/, or globs such as lock/*/pause-*) and those of scenario files (-f, the JSON simrun shrink writes)",
	flags:   func(fs *flag.FlagSet) { new(runFlags).register(fs) },
}

func init() { runCommand.run = runRun }

// runFlags are run's flags.
type runFlags struct {
	batchFlags
	seed     string
	runs     int
	duration time.Duration
	ttl      string
	members  int
	latency  time.Duration
	files    fileList
	command  string
	recipe   string
}

// fileList is a flag that may be given several times.
type fileList []string

func (l *fileList) String() string     { return strings.Join(*l, ",") }
func (l *fileList) Set(v string) error { *l = append(*l, v); return nil }

func (f *runFlags) register(fs *flag.FlagSet) {
	f.batchFlags.register(fs)
	fs.StringVar(&f.seed, "seed", "", "the first run's seed, in decimal (default each scenario's own)")
	fs.IntVar(&f.runs, "runs", 1, "runs of each scenario, with seeds seed, seed+1, …")
	fs.DurationVar(&f.duration, "duration", 0, "how long each workload runs (default each scenario's own, scaled with -ttl)")
	fs.StringVar(&f.ttl, "ttl", "", "the recipe's lease TTL, a whole number of seconds such as 6s: each scenario is played at it, its times and its judges' bounds scaled by TTL over its own; \"observed\" takes the TTL the recipe grants (default each scenario's own)")
	fs.IntVar(&f.members, "members", 0, "cluster members (default each scenario's own)")
	fs.DurationVar(&f.latency, "latency", 0, "every link's one-way delay, each chunk of bytes held back latency±latency/2 (default each scenario's own, most often 0: on the virtual clock a request then takes no time)")
	fs.Var(&f.files, "f", "a scenario file (JSON, as result.json's \"scenario\" or simrun shrink's output) to run; may be given several times")
	fs.StringVar(&f.command, "command", "", "run each scenario with a recipe in another process instead, in place of the recipe its name names: this program, one process per client, speaking docs/protocol.md (split on spaces; on the real clock)")
	fs.StringVar(&f.recipe, "recipe", "process", "with -command, the recipe's name in scenario names and reports")
}

func runRun(e *env, args []string) (int, error) {
	var f runFlags
	names, err := e.parseFlags(runCommand, args, f.register)
	if err != nil {
		return exitUsage, err
	}
	if len(names) == 0 && len(f.files) == 0 {
		return exitUsage, usagef("name at least one scenario (simrun list shows them) or a scenario file with -f")
	}
	var first *seed.Seed
	if f.seed != "" {
		s, err := seed.Parse(f.seed)
		if err != nil {
			return exitUsage, usagef("-seed: %v", err)
		}
		first = &s
	}
	if f.runs < 1 {
		return exitUsage, usagef("-runs %d: want at least 1", f.runs)
	}
	var ttl ttlSpec
	if f.ttl != "" {
		if ttl, err = parseTTL(f.ttl); err != nil {
			return exitUsage, configErr(fmt.Errorf("-ttl: %w", err))
		}
	}
	if f.duration < 0 || f.members < 0 || f.latency < 0 {
		return exitUsage, usagef("-duration, -members and -latency must not be negative")
	}
	var picked []scenarios.Scenario
	if len(names) > 0 {
		if picked, err = match(e.all(), names); err != nil {
			return exitUsage, configErr(err)
		}
	}
	for _, path := range f.files {
		s, err := readScenarioFile(path)
		if err != nil {
			return exitUsage, configErr(err)
		}
		picked = append(picked, s)
	}
	if err := f.batchFlags.check(e); err != nil {
		return exitUsage, err
	}
	exact := func(name string) bool { return namedExactly(names, name) }
	picked, note, err := withCommand(picked, f.command, f.recipe, exact)
	if err != nil {
		return exitUsage, err
	}
	var jobs []job
	var ttlErrs []error
	for _, s := range picked {
		if s, err = ttl.apply(s); err != nil {
			ttlErrs = append(ttlErrs, fmt.Errorf("-ttl %s: %s: %w", ttl, s.Name, err))
			continue
		}
		if f.duration > 0 {
			s.Workload.Duration = scenarios.Duration(f.duration)
		}
		if f.members > 0 {
			s.Cluster.Members = f.members
		}
		if f.latency > 0 {
			s.Cluster.Latency = scenarios.Duration(f.latency)
		}
		base := s.Seed
		if first != nil {
			base = *first
		}
		for _, sd := range seeds(base, f.runs) {
			s.Seed = sd
			jobs = append(jobs, job{scenario: s})
		}
	}
	if err := errors.Join(ttlErrs...); err != nil {
		return exitUsage, configErr(err)
	}
	if f.duration > 0 {
		if err := checkLengths(jobs, "-duration"); err != nil {
			return exitUsage, configErr(err)
		}
	}
	if note != "" {
		fmt.Fprintln(e.stderr, note)
	}
	return e.batch(jobs, f.batchFlags, results.Summary{Command: "run"}, nil)
}

// readScenarioFile reads a scenario written as JSON and checks that it
// can run; errors name the file.
func readScenarioFile(path string) (scenarios.Scenario, error) {
	s, err := results.ReadScenario(path)
	if err != nil {
		return scenarios.Scenario{}, fmt.Errorf("-f: %w", err)
	}
	if err := s.Validate(); err != nil {
		return scenarios.Scenario{}, fmt.Errorf("-f %s: %w", path, err)
	}
	return s, nil
}
