package results

import (
	"path"
	"strings"

	"github.com/etcdsim/etcdsim/internal/runfile"
	"github.com/etcdsim/etcdsim/seed"
)

// The files of a results directory and of its run directories. simrun's
// child writes a few more into a run's directory for its parent
// (child.log, child.pid, harness-error.txt, process.json), and the pages
// of package reports go beside the JSON; none of them is read back as a
// result.
const (
	// SummaryFile is the results directory's summary of its runs
	// (Summary), written by simrun.
	SummaryFile = "summary.json"
	// ScenarioFile is the scenario a run directory's run is to run, as
	// simrun's parent hands it to its child, and the scenario simrun
	// shrink writes (scenarios.Scenario).
	ScenarioFile = "scenario.json"
	// ResultFile is what a run found (scenarios.Result).
	ResultFile = runfile.ResultFile
	// HistoryFile is every operation a run recorded (checker.History).
	HistoryFile = runfile.HistoryFile
)

// RunDir is where the run of the scenario called name, with the variant
// a campaign gave it ("" for none) and seed, goes inside a results
// directory, slash-separated: <name with / replaced by ->[/<variant>]/seed-<n>,
// such as lock-mutex-leader-kill/members-5/seed-3.
func RunDir(name, variant string, seed seed.Seed) string {
	parts := []string{strings.ReplaceAll(name, "/", "-")}
	if variant != "" {
		parts = append(parts, variant)
	}
	return path.Join(append(parts, "seed-"+seed.String())...)
}

// ParseRunDir reads a run directory relative to its results directory,
// slash-separated, as RunDir makes it: the variant ("" for none) and the
// seed. ok is false when rel is not of that layout.
func ParseRunDir(rel string) (variant string, s seed.Seed, ok bool) {
	parts := strings.Split(rel, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[0] == "." || parts[0] == ".." {
		return "", 0, false
	}
	n, found := strings.CutPrefix(parts[len(parts)-1], "seed-")
	if !found {
		return "", 0, false
	}
	s, err := seed.Parse(n)
	if err != nil || s.String() != n {
		return "", 0, false
	}
	if len(parts) == 3 {
		if parts[1] == "" || parts[1] == "." || parts[1] == ".." {
			return "", 0, false
		}
		variant = parts[1]
	}
	return variant, s, true
}

// Label names a scenario and the variant a campaign gave it the way
// simrun's progress lines, summary.json and the pages do: the name, with
// the variant in brackets if there is one, "lock/mutex/leader-kill[members-5]".
func Label(name, variant string) string {
	if variant == "" {
		return name
	}
	return name + "[" + variant + "]"
}
