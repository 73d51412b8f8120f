package simrun

import (
	"flag"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

var galleryCommand = &command{
	name:    "gallery",
	usage:   "[-parallel P] [-out DIR] [-run-timeout D] [-inprocess]",
	summary: "run every registered scenario once, with its own seed",
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
	var jobs []job
	for _, s := range e.all() {
		jobs = append(jobs, job{scenario: s})
	}
	return e.batch(jobs, f, results.Summary{Command: "gallery"}, nil)
}
