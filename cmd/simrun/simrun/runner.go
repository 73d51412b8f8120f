package simrun

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/seed"
)

// outcome is what became of one job.
type outcome struct {
	Name    string    `json:"name"`
	Variant string    `json:"variant,omitempty"`
	Seed    seed.Seed `json:"seed"`
	// Dir holds result.json and history.json, relative to the output
	// directory.
	Dir    string `json:"dir"`
	Expect string `json:"expect"`
	// Met and Why are the run's judgement; Verdict the checks' combined
	// verdict.
	Met     bool   `json:"met"`
	Why     string `json:"why,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	// Violations counts the violations found, by checker.
	Violations map[string]int `json:"violations,omitempty"`
	// FirstViolation is when the earliest operation a violation names
	// was called, on the run's clock; absent without a violation.
	FirstViolation *scenarios.Duration `json:"first_violation,omitempty"`
	Duration       scenarios.Duration  `json:"duration"`
	// Error is why the run has no verdict: a harness failure, or, with
	// Unusable, a recipe that could not be used (scenarios.ErrRecipe).
	Error    string `json:"error,omitempty"`
	Unusable bool   `json:"unusable_recipe,omitempty"`
	// ScheduleErr says that the run's fault schedule did not run as
	// written (scenarios.Result.ScheduleErr): the run has checks, but
	// it did not test what its scenario says, so it is neither met nor a
	// detection.
	ScheduleErr string `json:"schedule_error,omitempty"`
	// Replay is the command that runs it again.
	Replay string `json:"replay,omitempty"`
	// Process is the process that ran the run — its child process, or
	// simrun itself with -inprocess — once the run had closed its cluster.
	Process *procStats `json:"process,omitempty"`
	// Parent is simrun itself as the run finished: the same as Process
	// with -inprocess.
	Parent *procStats `json:"parent,omitempty"`

	stopped bool // ended by the interrupt: not reported as a run
}

func (o outcome) label() string {
	if o.Variant == "" {
		return o.Name
	}
	return o.Name + "[" + o.Variant + "]"
}

// violations returns the number of violations found in all.
func (o outcome) violations() int {
	n := 0
	for _, v := range o.Violations {
		n += v
	}
	return n
}

// execute runs jobs as r says, parallel at a time, into out, telling p
// about each as it finishes, and returns the outcomes of the runs that
// finished (not those the interrupt stopped), in the order of jobs. When
// ctx ends it starts no more runs; the running ones see ctx end (a child
// process is sent SIGTERM), heal and close their clusters, and execute
// returns once they have.
func execute(ctx context.Context, r runner, jobs []job, parallel int, out string, p progress) []outcome {
	p.start(len(jobs))
	defer p.stop()
	type done struct {
		i int
		o outcome
	}
	todo := make(chan int)
	results := make(chan done)
	var wg sync.WaitGroup
	for range min(parallel, len(jobs)) {
		wg.Go(func() {
			for i := range todo {
				results <- done{i, r.runJob(ctx, jobs[i], out)}
			}
		})
	}
	go func() {
		defer close(todo)
		for i := range jobs {
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
	go func() { wg.Wait(); close(results) }()

	got := make([]*outcome, len(jobs))
	for d := range results {
		if d.o.stopped {
			continue
		}
		got[d.i] = &d.o
		p.finished(d.o)
	}
	var outs []outcome
	for _, o := range got {
		if o != nil {
			outs = append(outs, *o)
		}
	}
	return outs
}

// runJob runs one job into out/<job dir>, in a child process or in this
// one as r says.
func (r runner) runJob(ctx context.Context, j job, out string) outcome {
	dir := filepath.Join(out, j.dir())
	s := j.scenario
	o := outcome{Name: s.Name, Variant: j.variant, Seed: s.Seed, Dir: j.dir(), Expect: s.Expect.String(),
		Replay: r.replay(filepath.Join(dir, "result.json"))}
	limit := r.limit(s)
	t0 := time.Now()
	var res *scenarios.Result
	var err error
	if r.inProcess {
		// A run that ignores its context's end cannot be stopped here: it
		// holds up simrun. Children can be killed.
		rctx, cancel := context.WithTimeout(ctx, limit)
		res, err = scenarios.Run(rctx, s, scenarios.Options{Out: dir, Replay: o.Replay})
		cancel()
		o.Process = sampleProc()
	} else {
		res, o.Process, err = r.runChild(ctx, j, dir, o.Replay, limit)
	}
	o.Parent = o.Process
	if !r.inProcess {
		o.Parent = sampleProc()
	}
	o.Duration = scenarios.Duration(time.Since(t0))
	if err != nil {
		// A run the interrupt cut short, its harness included, has no
		// verdict to report.
		o.stopped = ctx.Err() != nil
		o.Error = err.Error()
		o.Why = "harness failure: " + err.Error()
		if errors.Is(err, scenarios.ErrRecipe) {
			o.Unusable = true
			o.Why = "recipe unusable: " + err.Error()
		}
		return o
	}
	o.Met, o.Why, o.Verdict, o.ScheduleErr = res.Met, res.Why, res.Verdict.String(), res.ScheduleErr
	o.Duration = res.Timings.Total
	if t, ok := res.FirstViolation(); ok {
		d := scenarios.Duration(t)
		o.FirstViolation = &d
	}
	for _, c := range res.Checks {
		n := max(len(c.Violations), int(c.Metrics["violations"]))
		if c.Verdict == checker.VerdictViolation && n == 0 {
			n = 1
		}
		if n > 0 {
			if o.Violations == nil {
				o.Violations = map[string]int{}
			}
			o.Violations[c.Checker] += n
		}
	}
	return o
}

// budget bounds one run: its workload, and generously the cluster's start
// and close, the settle after the schedule and the checkers.
func budget(s scenarios.Scenario) time.Duration {
	d := s.Workload.Duration.D()
	if d == 0 {
		d = 8 * time.Second
	}
	return d + 2*time.Minute
}
