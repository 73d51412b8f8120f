package results

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/seed"
)

// SummaryVersion is the version of summary.json this package writes, and
// the newest it reads. Version 2 added Reused; version 3 DetectionSeeds,
// InterruptedRuns, and a run's Retry, Retried and Interrupted; version 4
// a run's RecipeFaults and NotApplied; version 5 ProcStats.CPU.
const SummaryVersion = 5

// Summary is what summary.json holds: every finished run of a batch —
// simrun run, gallery, campaign (or one shard of it), merge — and, per
// scenario, how they went. simrun writes it when the batch begins, as
// runs finish, and when it ends, so a batch killed on the way leaves one
// that names its campaign and the runs it finished.
type Summary struct {
	Version int `json:"version"`
	// Command is the command that wrote it: run, gallery, campaign, merge.
	Command string `json:"command"`
	// Campaign is the hash of a campaign's expanded run list, the same in
	// every shard of it; "" outside campaigns.
	Campaign string `json:"campaign,omitempty"`
	// CampaignRuns is how many runs the whole campaign has, every shard's.
	CampaignRuns int `json:"campaign_runs,omitempty"`
	// Shards are the shards this summary covers; empty outside campaigns.
	Shards []Shard `json:"shards,omitempty"`
	// Planned is how many runs were to be done; Runs holds those that
	// finished.
	Planned int                `json:"planned"`
	Started time.Time          `json:"started"`
	Elapsed scenarios.Duration `json:"elapsed"`
	// Interrupted says that simrun stopped before every planned run
	// finished: a signal stopped it, or, in a summary written while the
	// batch was under way, the batch had not ended.
	Interrupted bool `json:"interrupted,omitempty"`
	// DetectionSeeds is, in simrun gallery's summary, how many seeds a
	// scenario that expects a violation may try before its row is called
	// missed (scenarios.DetectionSeeds); a scenario that expects a pass
	// gets one. 0 elsewhere: every run is judged on its own.
	DetectionSeeds int `json:"detection_seeds,omitempty"`
	// Reused counts the runs of Runs that an earlier simrun campaign into
	// the same directory had finished and this one resumed from: read
	// back from their files, they have no Parent figures.
	Reused int `json:"reused,omitempty"`
	// HarnessFailures counts the finished runs that have no verdict: the
	// harness failed, or the run's process crashed, hung past its
	// deadline or left no result. Each has its error in Runs.
	HarnessFailures int `json:"harness_failures"`
	// UnusableRecipes counts the finished runs that have no verdict
	// because their recipe could not be used: a constructor that returned
	// nil, panicked or blocked, a holder missing a method the workload
	// needs. Each has its error in Runs.
	UnusableRecipes int `json:"unusable_recipes,omitempty"`
	// InterruptedRuns counts the runs of Runs that the interrupt stopped
	// before they had a verdict (SummaryRun.Interrupted).
	InterruptedRuns int               `json:"interrupted_runs,omitempty"`
	Runs            []SummaryRun      `json:"runs"`
	Scenarios       []ScenarioSummary `json:"scenarios"`
}

// Shard is one slice of a campaign's runs: those whose index in the
// sorted run list is Index modulo Count.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// SummaryRun is one finished run as summary.json lists it.
type SummaryRun struct {
	Name    string    `json:"name"`
	Variant string    `json:"variant,omitempty"`
	Seed    seed.Seed `json:"seed"`
	// Dir holds the run's files, relative to the results directory,
	// slash-separated (RunDir).
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
	// RecipeFaults are what the recipe did wrong that did not stop the
	// run (scenarios.Result.RecipeFaults), one sentence each.
	RecipeFaults []string `json:"recipe_faults,omitempty"`
	// NotApplied are the faults of the schedule that could not apply to
	// the run (checker.FaultEvent.NotApplicable), each as "name: why".
	NotApplied []string `json:"faults_not_applied,omitempty"`
	// Retry is which seed of its row the run is, when a row may try
	// several (simrun gallery gives a scenario that expects a violation
	// Summary.DetectionSeeds): 0 for the scenario's own seed, 1 for the
	// next, …; Seed-Retry is the row's first seed.
	Retry int `json:"retry,omitempty"`
	// Interrupted says that simrun's interrupt (a signal) stopped the run
	// before it had a verdict: it is listed, so that no run directory is
	// left beside the summary unaccounted for, but it is neither met nor
	// missed, nor a harness failure; Why says how it stopped.
	Interrupted bool `json:"interrupted,omitempty"`
	// Retried says that the run missed its expectation and the next seed
	// was tried: the row is judged by its last run, not by this one.
	Retried bool `json:"retried,omitempty"`
	// Process is the process that ran the run — its child process, or
	// simrun itself with -inprocess — once the run had closed its cluster.
	Process *ProcStats `json:"process,omitempty"`
	// Parent is simrun itself as the run finished: the same as Process
	// with -inprocess.
	Parent *ProcStats `json:"parent,omitempty"`
}

// Finished counts the planned runs that finished: every run but those
// retried on another seed (SummaryRun.Retried), which share their row's
// place in Planned with the run that followed them, and those the
// interrupt stopped.
func (s *Summary) Finished() int {
	n := 0
	for _, r := range s.Runs {
		if !r.Retried && !r.Interrupted {
			n++
		}
	}
	return n
}

// Label names the run's scenario and variant (see Label).
func (r SummaryRun) Label() string { return Label(r.Name, r.Variant) }

// ViolationCount is the number of violations the run found, of every
// checker.
func (r SummaryRun) ViolationCount() int {
	n := 0
	for _, v := range r.Violations {
		n += v
	}
	return n
}

// ProcStats is a process as a run left it, sampled once the run's cluster
// had closed. Read along a long campaign's runs in summary.json, it shows
// whether goroutines or memory pile up from run to run:
//
//	jq -r '.runs[] | [.process.goroutines, .process.heap_inuse_bytes, .process.rss_bytes] | @tsv' summary.json
//
// and what each run cost in CPU, whatever else the machine was doing:
//
//	jq -r '.runs[] | [.process.cpu, .name] | @tsv' summary.json
type ProcStats struct {
	Goroutines int `json:"goroutines"`
	// HeapInUse is the Go heap's in-use spans (runtime.MemStats.HeapInuse).
	HeapInUse uint64 `json:"heap_inuse_bytes"`
	// RSS is the resident set size; 0 (left out) where /proc is not.
	RSS uint64 `json:"rss_bytes,omitempty"`
	// FDs counts the open file descriptors; 0 (left out) where /proc is
	// not.
	FDs int `json:"fds,omitempty"`
	// CPU is the user and system CPU time the run's child process used,
	// from start to exit, read by its parent once it had exited: what the
	// run cost, whatever else the machine was doing. 0 (left out) for a
	// run in simrun's own process, and in the parent's figures.
	CPU scenarios.Duration `json:"cpu,omitempty"`
}

// NewSummaryRun is how summary.json lists the run res, which ran in the
// run directory dir (relative to the results directory) as variant:
// its judgement, its violations by checker and when the first began.
func NewSummaryRun(res *scenarios.Result, variant, dir string) SummaryRun {
	s := res.Scenario
	r := SummaryRun{Name: s.Name, Variant: variant, Seed: s.Seed, Dir: dir, Expect: s.Expect.String(),
		Met: res.Met, Why: res.Why, Verdict: res.Verdict.String(), ScheduleErr: res.ScheduleErr,
		Duration: res.Timings.Total, Replay: res.Replay, RecipeFaults: slices.Clone(res.RecipeFaults), NotApplied: res.NotApplied()}
	if t, ok := res.FirstViolation(); ok {
		d := scenarios.Duration(t)
		r.FirstViolation = &d
	}
	for _, c := range res.Checks {
		n := max(len(c.Violations), int(c.Metrics["violations"]))
		if c.Verdict == checker.VerdictViolation && n == 0 {
			n = 1
		}
		if n > 0 {
			if r.Violations == nil {
				r.Violations = map[string]int{}
			}
			r.Violations[string(c.Checker)] += n
		}
	}
	return r
}

// ScenarioSummary is how the runs of one scenario (and variant) went.
type ScenarioSummary struct {
	Scenario string `json:"scenario"`
	Expect   string `json:"expect"`
	Runs     int    `json:"runs"`
	Met      int    `json:"met"`
	// Errors counts the runs without a verdict: harness failures and
	// recipes that could not be used.
	Errors int `json:"errors,omitempty"`
	// Interrupted counts the runs the interrupt stopped before they had a
	// verdict.
	Interrupted int `json:"interrupted,omitempty"`
	// ScheduleErrors counts the runs whose fault schedule did not run as
	// written: judged, but not a test of what the scenario says, so they
	// are neither met nor counted in the detection.
	ScheduleErrors int `json:"schedule_errors,omitempty"`
	// Found counts the runs that found a violation, of any checker, with
	// their schedule run as written: for a scenario that expects a pass
	// — a user's recipe under the Safety constructors, say — the runs
	// that caught something.
	Found int `json:"found,omitempty"`
	// Violations counts the violations found, by checker.
	Violations map[string]int `json:"violations,omitempty"`
	// Violated counts the runs with a violation, and FirstViolation is
	// the median over them of when the first violation began.
	Violated       int                `json:"violated,omitempty"`
	FirstViolation scenarios.Duration `json:"first_violation,omitempty"`
	// Median is the median run time.
	Median scenarios.Duration `json:"median"`
}

// Broken reports whether the scenario expects a violation.
func (ss ScenarioSummary) Broken() bool { return ss.Expect != checker.Expectation{}.String() }

// Judged is how many runs have a verdict on the schedule as written.
func (ss ScenarioSummary) Judged() int {
	return ss.Runs - ss.Errors - ss.ScheduleErrors - ss.Interrupted
}

// Detection is, over the judged runs, the share that found the violation
// a broken scenario expects, or the share that found any violation in a
// scenario that expects a pass ("found 100%"): "-" when there is nothing
// to say.
func (ss ScenarioSummary) Detection() string {
	n := ss.Judged()
	switch {
	case n <= 0:
		return "-"
	case ss.Broken():
		return fmt.Sprintf("%.0f%%", 100*float64(ss.Met)/float64(n))
	case ss.Found > 0:
		return fmt.Sprintf("found %.0f%%", 100*float64(ss.Found)/float64(n))
	}
	return "-"
}

// MetLow is the lower bound of the 95% Wilson score interval of the rate
// at which the scenario's judged runs met their expectation: for a
// pitfall its detection rate, for a correct recipe its pass rate. Wilson's
// interval, not the normal approximation, because the rates that matter
// sit at or near 100%, where the normal interval collapses to a point
// (20 of 20 would claim 100% ± 0); 20 of 20 gives 0.84, 100 of 100 0.96.
// It returns false with no judged run.
func (ss ScenarioSummary) MetLow() (float64, bool) {
	return wilsonLow(ss.Met, ss.Judged())
}

// wilsonLow is the lower bound of the 95% Wilson score interval for k
// successes in n trials.
func wilsonLow(k, n int) (float64, bool) {
	if n <= 0 {
		return 0, false
	}
	const z = 1.959963984540054 // the normal distribution's 97.5th percentile
	p, nf := float64(k)/float64(n), float64(n)
	centre := p + z*z/(2*nf)
	spread := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return max(0, (centre-spread)/(1+z*z/nf)), true
}

// Aggregate fills in what Runs decide: Scenarios, in the order their
// labels first come, HarnessFailures, UnusableRecipes and InterruptedRuns.
func (s *Summary) Aggregate() {
	by := map[string][]SummaryRun{}
	var order []string
	s.HarnessFailures, s.UnusableRecipes, s.InterruptedRuns = 0, 0, 0
	for _, r := range s.Runs {
		if _, ok := by[r.Label()]; !ok {
			order = append(order, r.Label())
		}
		by[r.Label()] = append(by[r.Label()], r)
		switch {
		case r.Interrupted:
			s.InterruptedRuns++
		case r.Unusable:
			s.UnusableRecipes++
		case r.Error != "":
			s.HarnessFailures++
		}
	}
	s.Scenarios = nil
	for _, l := range order {
		runs := by[l]
		ss := ScenarioSummary{Scenario: l, Expect: runs[0].Expect, Runs: len(runs)}
		var ds, firsts []scenarios.Duration
		for _, r := range runs {
			if r.FirstViolation != nil {
				firsts = append(firsts, *r.FirstViolation)
			}
			if r.Met {
				ss.Met++
			}
			switch {
			case r.Interrupted:
				ss.Interrupted++
			case r.Error != "":
				ss.Errors++
			case r.ScheduleErr != "":
				ss.ScheduleErrors++
			case len(r.Violations) > 0:
				ss.Found++
			}
			for c, n := range r.Violations {
				if ss.Violations == nil {
					ss.Violations = map[string]int{}
				}
				ss.Violations[c] += n
			}
			ds = append(ds, r.Duration)
		}
		ss.Median = median(ds)
		ss.Violated, ss.FirstViolation = len(firsts), median(firsts)
		s.Scenarios = append(s.Scenarios, ss)
	}
}

// median is the middle of ds (the upper one of an even count), 0 for none.
func median(ds []scenarios.Duration) scenarios.Duration {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Sorted(slices.Values(ds))
	return ds[len(ds)/2]
}
