package simrun

import (
	"cmp"
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
	"github.com/etcdsim/etcdsim/seed"
)

// journalEvery is how often, at most, a batch writes its summary.json
// again as its runs finish.
const journalEvery = 2 * time.Second

// journal is the progress of a batch that also keeps its summary.json up
// to date: it is written when the batch begins (with Interrupted set:
// the batch has not ended), again as runs finish, at most every
// journalEvery, and at the end. A batch killed on the way — an evicted
// pod, kill -9 — leaves a summary that names its campaign and lists the
// runs it finished, all but those of its last seconds; simrun campaign
// resumes from it. Its methods are called from one goroutine, as
// progress's are.
type journal struct {
	progress
	dir   string
	sum   *results.Summary
	order map[string]int // a run's directory → its index in the batch's jobs
	last  time.Time      // the last write
}

func (j *journal) finished(o results.SummaryRun) {
	j.progress.finished(o)
	j.sum.Runs = append(j.sum.Runs, o)
	if time.Since(j.last) >= journalEvery {
		j.write() //nolint:errcheck // the write at the end reports it
	}
}

// rank is where run o's job comes in the batch: a retry (a later seed of a
// row, see job.seeds) comes where its row's first seed does.
func (j *journal) rank(o results.SummaryRun) int {
	if o.Retry == 0 {
		return j.order[o.Dir]
	}
	return j.order[results.RunDir(o.Name, o.Variant, o.Seed-seed.Seed(o.Retry))]
}

// write writes the summary as it stands: its runs in the jobs' order,
// aggregated, with the time elapsed so far.
func (j *journal) write() error {
	s := j.sum
	slices.SortStableFunc(s.Runs, func(a, b results.SummaryRun) int {
		return cmp.Or(cmp.Compare(j.rank(a), j.rank(b)), cmp.Compare(a.Retry, b.Retry))
	})
	if j.last.IsZero() {
		s.Interrupted = true // until the batch says otherwise at its end
	}
	s.Elapsed = scenarios.Duration(time.Since(s.Started))
	s.Aggregate()
	j.last = time.Now()
	return results.WriteSummary(j.dir, s)
}
