package simrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// execute runs jobs as r says, parallel at a time, into out, telling p
// about each run as it finishes, and returns the outcomes of the runs it
// started, each job's runs together, in the order of jobs (though it
// starts them costliest first: dispatchOrder): a run the
// interrupt stopped before it had a verdict is among them, marked
// Interrupted. A job that may try more seeds than one (job.seeds)
// and whose run misses its expectation, with a verdict, is run again on
// the next seed by the same worker; the run that missed is marked
// Retried. When ctx ends it starts no more runs; the running ones see ctx
// end (a child process is sent SIGTERM), heal and close their clusters,
// and execute returns once they have.
func execute(ctx context.Context, r runner, jobs []job, parallel int, out string, p progress) []results.SummaryRun {
	p.start(len(jobs))
	defer p.stop()
	type done struct {
		i int
		o results.SummaryRun
	}
	todo := make(chan int)
	finished := make(chan done)
	var wg sync.WaitGroup
	for range min(parallel, len(jobs)) {
		wg.Go(func() {
			for i := range todo {
				for j := jobs[i]; ; {
					o, stopped := r.runJob(ctx, j, out)
					o.Retry = j.retry
					n, more := j.next()
					more = more && !stopped && !o.Met && o.Error == "" && ctx.Err() == nil
					o.Retried = more
					if stopped {
						o = interrupted(o)
					}
					finished <- done{i, o}
					if !more {
						break
					}
					j = n
				}
			}
		})
	}
	go func() {
		defer close(todo)
		for _, i := range dispatchOrder(jobs) {
			if ctx.Err() != nil {
				return
			}
			select {
			case todo <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(finished) }()

	got := make([][]results.SummaryRun, len(jobs))
	for d := range finished {
		got[d.i] = append(got[d.i], d.o)
		p.finished(d.o)
	}
	var outs []results.SummaryRun
	for _, rs := range got {
		outs = append(outs, rs...)
	}
	return outs
}

// interrupted is how summary.json lists run o, which the interrupt
// stopped before it had a verdict: neither met nor missed, nor a harness
// failure.
func interrupted(o results.SummaryRun) results.SummaryRun {
	o.Interrupted, o.Met, o.Unusable = true, false, false
	o.Why = "interrupted before it had a verdict: " + o.Error
	o.Error = ""
	return o
}

// runJob runs one job into out/<job dir>, in a child process or in this
// one as r says, and returns how summary.json lists it. stopped says that
// ctx ended the run before it had a verdict (see interrupted).
func (r runner) runJob(ctx context.Context, j job, out string) (o results.SummaryRun, stopped bool) {
	dir := filepath.Join(out, filepath.FromSlash(j.dir()))
	s := j.scenario
	replay := r.replay(filepath.Join(dir, results.ResultFile))
	limit := r.limit(s)
	t0 := time.Now()
	var res *scenarios.Result
	var proc *results.ProcStats
	err := prepareRunDir(dir, s)
	switch {
	case err != nil:
		err = fmt.Errorf("%w: %s seed %s: %w", scenarios.ErrHarness, j.label(), s.Seed, err)
	case r.inProcess:
		// A run that ignores its context's end cannot be stopped here: it
		// holds up simrun. Children can be killed.
		rctx, cancel := context.WithTimeout(ctx, limit)
		res, err = scenarios.Run(rctx, s, scenarios.Options{Out: dir, Replay: replay})
		cancel()
		proc = sampleProc()
	default:
		res, proc, err = r.runChild(ctx, j, dir, replay, limit)
	}
	if err != nil {
		// A run the interrupt cut short, its harness included, has no
		// verdict to report.
		o = results.SummaryRun{Name: s.Name, Variant: j.variant, Seed: s.Seed, Dir: j.dir(), Expect: s.Expect.String(),
			Duration: scenarios.Duration(time.Since(t0)), Error: err.Error(), Why: "harness failure: " + err.Error(), Replay: replay}
		if errors.Is(err, scenarios.ErrRecipe) {
			o.Unusable = true
			o.Why = "recipe unusable: " + err.Error()
		}
	} else {
		o = results.NewSummaryRun(res, j.variant, j.dir())
	}
	o.Process, o.Parent = proc, proc
	if !r.inProcess {
		o.Parent = sampleProc()
	}
	return o, err != nil && ctx.Err() != nil
}

// prepareRunDir makes the job's directory afresh — a run into a directory
// an earlier, interrupted one left must not be read back with its files —
// and writes the scenario it is to run.
func prepareRunDir(dir string, s scenarios.Scenario) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return results.WriteScenario(filepath.Join(dir, results.ScenarioFile), s)
}

// budget bounds one run: its workload, and generously the cluster's start
// and close, the settle after the schedule and the checkers.
func budget(s scenarios.Scenario) time.Duration {
	d := s.Workload.Duration.D()
	if d == 0 {
		d = 8 * time.Second
	}
	if s.Workload.ObservedTTL {
		// A probe of the workload, then the workload at the TTL the recipe
		// grants, its times scaled by that TTL over the scenario's: allow
		// for a TTL up to the concurrency package's default, 60 s.
		d += d * time.Duration(60*time.Second/max(s.Workload.TTL.D(), time.Second))
	}
	return d + 2*time.Minute
}
