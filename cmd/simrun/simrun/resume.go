package simrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// A campaign into a directory that already holds part of it — an earlier
// attempt that was interrupted, killed, or retried by a Kubernetes Job —
// resumes. Each run's directory says how far it got:
//
//   - complete: result.json and history.json read whole and agree, and
//     are the run of the job's scenario and seed. Kept, not run again:
//     summary.json lists it as its files say.
//   - truncated: a file cut short (results.ErrTruncated). Run again.
//   - invalid: a file that is whole but does not read — malformed, a
//     verdict edited by hand, a history that does not agree with its
//     result. Run again.
//   - interrupted: started (its scenario.json is there) but no
//     result.json: the run was stopped, killed with simrun, or its
//     harness failed. Run again.
//   - missing: no directory. Run.
//
// A directory of something else is refused before anything runs: a
// summary.json of another campaign (by the hash of its expanded run
// list), of another shard of this one, or of a command other than
// campaign; a run directory that is not among the shard's runs, or holds
// another scenario than its run's; a file of a newer etcdsim.

// resume reads what the output directory out holds of the campaign shard
// sum describes, whose runs are jobs (file is the campaign file, for
// messages), says on w what it found, and returns the runs it keeps, by
// index in jobs. An empty or new directory holds nothing and says nothing.
func resume(w io.Writer, out, file string, sum results.Summary, jobs []job) (map[int]results.SummaryRun, error) {
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("-out %s: "+format+"; use another -out, or empty it", append([]any{out}, args...)...)
	}
	if _, err := os.Stat(out); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // a new directory: batch makes it
	}
	found := false
	sp := filepath.Join(out, results.SummaryFile)
	if _, err := os.Stat(sp); err == nil {
		found = true
		s, err := results.ReadSummary(sp)
		if err != nil {
			return nil, fmt.Errorf("-out %s: cannot tell which campaign it holds: %w", out, err)
		}
		switch {
		case s.Command != "campaign" || s.Campaign == "":
			return nil, refuse("it holds the results of simrun %s, not of a campaign to resume", s.Command)
		case s.Campaign != sum.Campaign:
			return nil, refuse("it holds campaign %s (%d runs), not campaign %s (%d runs) of %s", s.Campaign, s.CampaignRuns, sum.Campaign, sum.CampaignRuns, file)
		case !slices.Equal(s.Shards, sum.Shards):
			return nil, refuse("it holds shard %s of campaign %s, not shard %s", shardsText(s.Shards), s.Campaign, shardsText(sum.Shards))
		}
	}
	rels, err := results.RunDirs(out)
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	for i, j := range jobs {
		index[j.dir()] = i
	}
	var foreign []string
	for _, rel := range rels {
		if _, ok := index[rel]; !ok {
			foreign = append(foreign, rel)
		}
	}
	if len(foreign) > 0 {
		return nil, refuse("it holds %d runs that are not runs of campaign %s shard %s: %s", len(foreign), sum.Campaign, shardsText(sum.Shards), listText(foreign, 5))
	}
	found = found || len(rels) > 0
	if !found {
		return nil, nil
	}
	done := map[int]results.SummaryRun{}
	var truncated, invalid, interrupted, missing int
	for i, j := range jobs {
		dir := filepath.Join(out, filepath.FromSlash(j.dir()))
		if _, err := os.Stat(dir); err != nil {
			missing++
			continue
		}
		o, err := finishedRun(dir, j)
		var v *results.VersionError
		var f foreignRun
		switch {
		case errors.As(err, &v):
			return nil, fmt.Errorf("-out %s: %w", out, err)
		case errors.As(err, &f):
			return nil, refuse("%v", f)
		case errors.Is(err, fs.ErrNotExist):
			interrupted++
		case errors.Is(err, results.ErrTruncated):
			truncated++
			fmt.Fprintf(w, "simrun: rerunning %s seed %s: %v\n", j.label(), j.scenario.Seed, err)
		case err != nil:
			invalid++
			fmt.Fprintf(w, "simrun: rerunning %s seed %s: %v\n", j.label(), j.scenario.Seed, err)
		default:
			done[i] = o
		}
	}
	inv := ""
	if invalid > 0 {
		inv = fmt.Sprintf(", %d whole but invalid rerun", invalid)
	}
	fmt.Fprintf(w, "simrun: resuming %s: %d runs complete, %d truncated rerun, %d interrupted rerun, %d missing%s\n",
		out, len(done), truncated, interrupted, missing, inv)
	return done, nil
}

// foreignRun is a run directory that holds another run than the job's.
type foreignRun struct{ msg string }

func (f foreignRun) Error() string { return f.msg }

// finishedRun reads the run of j in dir and returns how summary.json lists
// it, if it is complete. Its error wraps fs.ErrNotExist when the run has
// no result, is a *results.VersionError or a foreignRun when the
// directory must not be resumed, and otherwise says what does not read.
func finishedRun(dir string, j job) (results.SummaryRun, error) {
	sp := filepath.Join(dir, results.ScenarioFile)
	if _, err := os.Stat(sp); err == nil {
		s, err := results.ReadScenario(sp)
		if err != nil {
			return results.SummaryRun{}, err
		}
		if !sameScenario(s, j.scenario) {
			return results.SummaryRun{}, foreignRun{fmt.Sprintf("%s is not the scenario of the campaign's run %s seed %s", sp, j.label(), j.scenario.Seed)}
		}
	}
	r, err := results.ReadRun(dir)
	if err != nil {
		return results.SummaryRun{}, err
	}
	if s := r.Result.Scenario; s.Name != j.scenario.Name || s.Seed != j.scenario.Seed {
		return results.SummaryRun{}, foreignRun{fmt.Sprintf("%s holds a run of %s seed %s, not of the campaign's run %s seed %s",
			filepath.Join(dir, results.ResultFile), s.Name, s.Seed, j.label(), j.scenario.Seed)}
	}
	o := results.NewSummaryRun(r.Result, j.variant, j.dir())
	o.Process = readProcStats(filepath.Join(dir, processFile))
	return o, nil
}

// sameScenario reports whether a and b are the same scenario, as their
// JSON says: what a scenario.json can tell.
func sameScenario(a, b scenarios.Scenario) bool {
	ja, erra := json.Marshal(a)
	jb, errb := json.Marshal(b)
	return erra == nil && errb == nil && string(ja) == string(jb)
}

// shardsText writes shards as "0/4", or "0/4, 2/4".
func shardsText(shards []results.Shard) string {
	var s []string
	for _, sh := range shards {
		s = append(s, sh.String())
	}
	return strings.Join(s, ", ")
}

// listText writes up to n of items, and how many more there are.
func listText(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
