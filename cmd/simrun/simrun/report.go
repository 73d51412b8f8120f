package simrun

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/etcdsim/etcdsim/reports"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

var reportCommand = &command{
	name:    "report",
	usage:   "DIR...",
	summary: "render the HTML pages, junit.xml and summary.md of results directories (or of single run directories) from their JSON; a run page up to date is kept",
}

func init() { reportCommand.run = runReport }

func runReport(e *env, args []string) (int, error) {
	dirs, err := e.parseFlags(reportCommand, args, nil)
	if err != nil {
		return exitUsage, err
	}
	if len(dirs) == 0 {
		return exitUsage, usagef("name a results directory")
	}
	code := exitOK
	for _, dir := range dirs {
		// A results directory with runs that do not load is rendered all
		// the same, and its error lists them.
		if err := renderReport(dir); err != nil {
			fmt.Fprintf(e.stderr, "simrun report: %v\n", err)
			code = exitMissed
		}
		if _, err := os.Stat(reportPage(dir)); err == nil {
			fmt.Fprintf(e.stdout, "report: %s\n", reportPage(dir))
		}
	}
	return code, nil
}

// renderReport renders a results directory, or the one run in dir when it
// holds a result.json of its own.
func renderReport(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, results.ResultFile)); err == nil {
		return reports.RenderRun(dir)
	}
	return reports.RenderDir(dir)
}

func reportPage(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, results.ResultFile)); err == nil {
		return filepath.Join(dir, "report.html")
	}
	return filepath.Join(dir, "index.html")
}
