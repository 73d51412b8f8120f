package simrun

import (
	"flag"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

var runCommand = &command{
	name:    "run",
	usage:   "[-seed N] [-runs N] [-parallel P] [-duration D] [-members M] [-out DIR] [-run-timeout D] [-inprocess] NAME...",
	summary: "run the scenarios NAME... (exact names, prefixes such as lock/, or globs such as lock/*/pause-*)",
	flags:   func(fs *flag.FlagSet) { new(runFlags).register(fs) },
}

func init() { runCommand.run = runRun }

// runFlags are run's flags.
type runFlags struct {
	batchFlags
	seed     string
	runs     int
	duration time.Duration
	members  int
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.batchFlags.register(fs)
	fs.StringVar(&f.seed, "seed", "", "the first run's seed, in decimal (default each scenario's own)")
	fs.IntVar(&f.runs, "runs", 1, "runs of each scenario, with seeds seed, seed+1, …")
	fs.DurationVar(&f.duration, "duration", 0, "how long each workload runs (default each scenario's own)")
	fs.IntVar(&f.members, "members", 0, "cluster members (default each scenario's own)")
}

func runRun(e *env, args []string) (int, error) {
	var f runFlags
	names, err := e.parseFlags(runCommand, args, f.register)
	if err != nil {
		return exitUsage, err
	}
	if len(names) == 0 {
		return exitUsage, usagef("name at least one scenario (simrun list shows them)")
	}
	var seed *checker.Seed
	if f.seed != "" {
		s, err := checker.ParseSeed(f.seed)
		if err != nil {
			return exitUsage, usagef("-seed: %v", err)
		}
		seed = &s
	}
	if f.runs < 1 {
		return exitUsage, usagef("-runs %d: want at least 1", f.runs)
	}
	if f.duration < 0 || f.members < 0 {
		return exitUsage, usagef("-duration and -members must not be negative")
	}
	picked, err := match(e.all(), names)
	if err != nil {
		return exitUsage, configErr(err)
	}
	if err := f.batchFlags.check(e); err != nil {
		return exitUsage, err
	}
	var jobs []job
	for _, s := range picked {
		if f.duration > 0 {
			s.Workload.Duration = scenarios.Duration(f.duration)
		}
		if f.members > 0 {
			s.Cluster.Members = f.members
		}
		base := s.Seed
		if seed != nil {
			base = *seed
		}
		for _, sd := range seeds(base, f.runs) {
			s.Seed = sd
			jobs = append(jobs, job{scenario: s})
		}
	}
	return e.batch(jobs, f.batchFlags, Summary{Command: "run"})
}
