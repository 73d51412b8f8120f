package simrun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
	"github.com/etcdsim/etcdsim/seed"
)

// tryRecord is one candidate a shrink ran, as shrink.json records it.
type tryRecord struct {
	N         int                 `json:"n"`
	Reduction scenarios.Reduction `json:"reduction,omitempty"` // "" for the original
	Change    string              `json:"change"`
	// Dir holds the trials' runs, relative to the output directory.
	Dir string `json:"dir"`
	// Trials is how many runs the candidate needed; Ran how many
	// finished (the rest were stopped once one did not fail); Failed how
	// many found the violation.
	Trials int  `json:"trials"`
	Ran    int  `json:"ran"`
	Failed int  `json:"failed"`
	Kept   bool `json:"kept"`
	// Run is the trial with the original's seed, relative to the output
	// directory, for a kept candidate.
	Run string `json:"run,omitempty"`
	// Why says why the first trial that did not fail did not.
	Why     string             `json:"why,omitempty"`
	Elapsed scenarios.Duration `json:"elapsed"`
}

// fails runs the candidate once for each of the shrink's seeds, stopping
// at the first run that does not find the violation, and reports whether
// every run found it. Its error says why it could not tell: a harness
// failure, or ctx ended.
func (sh *shrinker) fails(ctx context.Context, c scenarios.Candidate) (bool, error) {
	n := len(sh.tries)
	rec := tryRecord{N: n, Reduction: c.Reduction, Change: c.Change, Dir: filepath.Join("tries", fmt.Sprintf("%03d", n)), Trials: len(sh.seeds)}
	fmt.Fprintf(sh.e.stderr, "simrun shrink: [%3d] %s: ", n, c.Change)
	t0 := time.Now()
	var jobs []job
	for _, sd := range sh.seeds {
		s := c.Scenario
		s.Seed = sd
		jobs = append(jobs, job{scenario: s})
	}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	j := &trialJudge{dir: filepath.Join(sh.out, rec.Dir), want: sh.want, cancel: cancel}
	execute(tctx, sh.r, jobs, sh.parallel, j.dir, j)
	rec.Elapsed = durationOf(time.Since(t0))
	rec.Ran = len(j.runs)
	var harness error
	var schedErrs []string
	for _, t := range j.runs {
		switch {
		case t.failed:
			rec.Failed++
		case rec.Why == "":
			rec.Why = fmt.Sprintf("seed %s did not: %s", t.seed, t.why)
		}
		if t.harness && harness == nil {
			harness = errors.New(t.why)
		}
		if t.scheduleErr != "" {
			schedErrs = append(schedErrs, fmt.Sprintf("seed %s: %s", t.seed, t.scheduleErr))
		}
	}
	rec.Kept = rec.Failed == len(jobs)
	if rec.Kept {
		rec.Run = filepath.Join(rec.Dir, filepath.FromSlash(jobs[0].dir()))
		kept := rec
		sh.best = &kept
	}
	sh.tries = append(sh.tries, rec)
	fmt.Fprintln(sh.e.stderr, tryLine(rec, ctx.Err() != nil, schedErrs))
	switch {
	case rec.Kept:
		return true, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	}
	return false, harness
}

// tryLine says how a candidate's trials went: "fails 3 of 3 → kept (41s)".
func tryLine(rec tryRecord, interrupted bool, schedErrs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fails %d of %d", rec.Failed, rec.Trials)
	switch {
	case rec.Kept:
		b.WriteString(" → kept")
	case interrupted:
		b.WriteString(" → interrupted")
	default:
		fmt.Fprintf(&b, " → %s", clip(rec.Why, 160))
		if n := rec.Trials - rec.Ran; n > 0 {
			fmt.Fprintf(&b, "; %d more not run", n)
		}
	}
	fmt.Fprintf(&b, " (%v)", rec.Elapsed.D().Round(100*time.Millisecond))
	if len(schedErrs) > 0 {
		fmt.Fprintf(&b, "\n\tthe fault schedule did not run as written: %s", clip(strings.Join(schedErrs, "; "), 300))
	}
	return b.String()
}

// clip shortens s to about n bytes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// trialRun is how one trial went.
type trialRun struct {
	seed        seed.Seed
	failed      bool   // found the violation
	harness     bool   // has no verdict
	why         string // what it found
	scheduleErr string
}

// trialJudge is the progress of one candidate's trials: it judges each
// run as it finishes, and stops the rest once one does not find the
// violation, since the candidate is then not kept whatever they find.
type trialJudge struct {
	dir    string // the runs' output directory
	want   checker.Expectation
	cancel context.CancelFunc
	runs   []trialRun
}

func (j *trialJudge) start(int) {}
func (j *trialJudge) stop()     {}

func (j *trialJudge) finished(o results.SummaryRun) {
	t := j.judge(o)
	j.runs = append(j.runs, t)
	if !t.failed {
		j.cancel()
	}
}

// judge reads a finished run's checks and says whether they find the
// violation. A schedule that did not run as written does not change
// that: the violation was found all the same.
func (j *trialJudge) judge(o results.SummaryRun) trialRun {
	t := trialRun{seed: o.Seed}
	if o.Error != "" {
		t.harness, t.why = true, "harness failure: "+o.Error
		return t
	}
	path := filepath.Join(j.dir, filepath.FromSlash(o.Dir), results.ResultFile)
	res, err := results.ReadResult(path)
	if err != nil {
		t.harness, t.why = true, fmt.Sprintf("harness failure: %v", err)
		return t
	}
	t.failed, t.why = j.want.Met(res.Checks...)
	t.scheduleErr = res.ScheduleErr
	return t
}

// seedList writes seeds as "seeds 1, 2, 3", or "seed 1".
func seedList(seeds []seed.Seed) string {
	var s []string
	for _, sd := range seeds {
		s = append(s, sd.String())
	}
	if len(s) == 1 {
		return "seed " + s[0]
	}
	return "seeds " + strings.Join(s, ", ")
}
