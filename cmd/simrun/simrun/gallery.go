package simrun

import (
	"flag"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

var galleryCommand = &command{
	name:    "gallery",
	usage:   "[-parallel P] [-out DIR] [-run-timeout D] [-inprocess]",
	summary: "run every registered scenario with its own seed; one that expects a violation and misses it tries the next seeds, up to scenarios.DetectionSeeds",
	flags:   func(fs *flag.FlagSet) { new(batchFlags).register(fs) },
}

func init() { galleryCommand.run = runGallery }

func runGallery(e *env, args []string) (int, error) {
	var f batchFlags
	pos, err := e.parseFlags(galleryCommand, args, f.register)
	if err != nil {
		return exitUsage, err
	}
	if len(pos) > 0 {
		return exitUsage, usagef("gallery takes no arguments (got %q); use run to pick scenarios", pos)
	}
	if err := f.check(e); err != nil {
		return exitUsage, err
	}
	return e.batch(galleryJobs(e.all()), f, results.Summary{Command: "gallery", DetectionSeeds: scenarios.DetectionSeeds}, nil)
}

// galleryJobs is a job of every scenario in all, on its own seed. A
// scenario that expects a violation is judged as the tests judge it:
// found on one of up to scenarios.DetectionSeeds seeds (whose comment
// says why one is not enough); one that expects a pass gets one seed,
// which must pass.
func galleryJobs(all []scenarios.Scenario) []job {
	var jobs []job
	for _, s := range all {
		j := job{scenario: s, seeds: 1}
		if !s.Expect.Pass() {
			j.seeds = scenarios.DetectionSeeds
		}
		jobs = append(jobs, j)
	}
	return jobs
}
