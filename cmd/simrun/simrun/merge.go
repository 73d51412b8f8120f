package simrun

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

var mergeCommand = &command{
	name:  "merge",
	usage: "-out DIR SHARD-DIR...",
	summary: "join the shard directories of one campaign into one: refuses shards of different campaigns\n" +
		"and shards that overlap; reports missing shards (exit 1)",
	flags: func(fs *flag.FlagSet) {
		fs.String("out", "", "the merged directory (required; must not hold a summary yet)")
	},
}

func init() { mergeCommand.run = runMerge }

func runMerge(e *env, args []string) (int, error) {
	var out string
	dirs, err := e.parseFlags(mergeCommand, args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "the merged directory (required; must not hold a summary yet)")
	})
	if err != nil {
		return exitUsage, err
	}
	if out == "" || len(dirs) == 0 {
		return exitUsage, usagef("name the merged directory with -out and at least one shard directory")
	}
	var sums []*results.Summary
	for _, d := range dirs {
		s, err := results.ReadSummary(filepath.Join(d, results.SummaryFile))
		if err != nil {
			return exitUsage, configErr(err)
		}
		if s.Campaign == "" || len(s.Shards) == 0 {
			return exitUsage, configErr(fmt.Errorf("%s is not a campaign's shard (its summary names no campaign)", d))
		}
		sums = append(sums, s)
	}
	merged, missing, err := mergeSummaries(dirs, sums)
	if err != nil {
		return exitUsage, configErr(err)
	}
	if _, err := os.Stat(filepath.Join(out, results.SummaryFile)); err == nil {
		return exitUsage, configErr(fmt.Errorf("-out %s already holds a summary.json", out))
	}
	if err := writable(out); err != nil {
		return exitUsage, configErr(err)
	}
	for i, s := range sums {
		for _, r := range s.Runs {
			rd := filepath.FromSlash(r.Dir)
			if err := os.CopyFS(filepath.Join(out, rd), os.DirFS(filepath.Join(dirs[i], rd))); err != nil {
				return exitMissed, fmt.Errorf("copying %s: %w", filepath.Join(dirs[i], rd), err)
			}
		}
	}
	table(e.stdout, merged)
	if err := results.WriteSummary(out, merged); err != nil {
		return exitMissed, fmt.Errorf("writing the summary: %w", err)
	}
	fmt.Fprintf(e.stdout, "summary: %s\n", filepath.Join(out, results.SummaryFile))
	if len(missing) > 0 {
		var ms []string
		for _, m := range missing {
			ms = append(ms, m.String())
		}
		fmt.Fprintf(e.stderr, "simrun merge: missing shards of campaign %s: %s\n", merged.Campaign, strings.Join(ms, ", "))
		return exitMissed, nil
	}
	if merged.Planned != merged.CampaignRuns {
		fmt.Fprintf(e.stderr, "simrun merge: the shards planned %d runs; the campaign has %d\n", merged.Planned, merged.CampaignRuns)
	}
	return exitCode(merged), nil
}

// mergeSummaries joins the summaries of the shards in dirs. It refuses
// shards of different campaigns or shard counts, and shards (or runs)
// that come twice; it returns the shards that are missing.
func mergeSummaries(dirs []string, sums []*results.Summary) (*results.Summary, []results.Shard, error) {
	m := &results.Summary{Command: "merge", Campaign: sums[0].Campaign, CampaignRuns: sums[0].CampaignRuns, Runs: []results.SummaryRun{}}
	count := sums[0].Shards[0].Count
	from := map[int]string{} // shard index → the directory it came from
	runs := map[string]string{}
	var errs []error
	for i, s := range sums {
		if s.Campaign != m.Campaign {
			errs = append(errs, fmt.Errorf("%s is of campaign %s, %s of campaign %s: refusing to merge different campaigns", dirs[i], s.Campaign, dirs[0], m.Campaign))
			continue
		}
		for _, sh := range s.Shards {
			if sh.Count != count {
				errs = append(errs, fmt.Errorf("%s is shard %s, %s one of %d shards: refusing to merge different shardings", dirs[i], sh, dirs[0], count))
				continue
			}
			if d, ok := from[sh.Index]; ok {
				errs = append(errs, fmt.Errorf("shard %s is in both %s and %s: refusing overlapping shards", sh, d, dirs[i]))
				continue
			}
			from[sh.Index] = dirs[i]
			m.Shards = append(m.Shards, sh)
		}
		for _, r := range s.Runs {
			k := r.Dir
			if d, ok := runs[k]; ok {
				errs = append(errs, fmt.Errorf("run %s is in both %s and %s: refusing overlapping shards", k, d, dirs[i]))
			}
			runs[k] = dirs[i]
			m.Runs = append(m.Runs, r)
		}
		m.Planned += s.Planned
		m.Reused += s.Reused
		m.Interrupted = m.Interrupted || s.Interrupted
		m.Elapsed += s.Elapsed
		if m.Started.IsZero() || s.Started.Before(m.Started) {
			m.Started = s.Started
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	var missing []results.Shard
	for i := range count {
		if _, ok := from[i]; !ok {
			missing = append(missing, results.Shard{Index: i, Count: count})
		}
	}
	slices.SortFunc(m.Shards, func(a, b results.Shard) int { return a.Index - b.Index })
	slices.SortFunc(m.Runs, func(a, b results.SummaryRun) int { return strings.Compare(a.Dir, b.Dir) })
	m.Aggregate()
	return m, missing, nil
}
