package reports

import (
	"fmt"
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// scenarioStats is how the runs of one scenario (and variant) went.
type scenarioStats struct {
	Label  string
	Expect string
	// Broken says that the scenario expects a violation.
	Broken bool
	Runs   []*results.Run
	Met    int
	// Detected counts the runs of a broken scenario that found the
	// violation it expects (expectation met).
	Detected int
	// ScheduleErrors counts the runs whose fault schedule did not run as
	// written: judged, but not a test of what the scenario says, so they
	// count neither as met nor in the detection rate.
	ScheduleErrors int
	// Found counts the runs, their schedule run as written, that found a
	// violation of any checker: for a scenario that expects a pass — a
	// user's recipe under the Safety constructors, say — what it caught.
	Found    int
	P50, P90 time.Duration
	Max      time.Duration
	// FirstViolation is the median, over the runs with a violation, of
	// when the run first showed one (scenarios.Result.FirstViolation);
	// Violated counts those runs.
	FirstViolation time.Duration
	Violated       int
	// OpP50, OpP90 and OpP99 are percentiles of the latency (Return-Call)
	// of every operation that completed ok in the scenario's runs; Ops
	// counts them.
	OpP50, OpP90, OpP99 time.Duration
	Ops                 int
}

// Judged is how many runs ran their fault schedule as written.
func (s scenarioStats) Judged() int { return len(s.Runs) - s.ScheduleErrors }

// DetectionRate is, over the judged runs, Detected for a broken scenario
// and Found for one that expects a pass.
func (s scenarioStats) DetectionRate() float64 {
	if s.Judged() <= 0 {
		return 0
	}
	if s.Broken {
		return float64(s.Detected) / float64(s.Judged())
	}
	return float64(s.Found) / float64(s.Judged())
}

// Detection is the detection rate in a table cell: "100% (20/20)" for a
// broken scenario, "found 60% (3/5)" for one expecting a pass whose runs
// found violations, "-" otherwise.
func (s scenarioStats) Detection() string {
	switch {
	case s.Judged() <= 0:
		return "-"
	case s.Broken:
		return fmt.Sprintf("%.0f%% (%d/%d)", 100*s.DetectionRate(), s.Detected, s.Judged())
	case s.Found > 0:
		return fmt.Sprintf("found %.0f%% (%d/%d)", 100*s.DetectionRate(), s.Found, s.Judged())
	}
	return "-"
}

// stats groups the runs by scenario label, in the order the runs come.
// lats holds each run's operation latencies (latencies); a run it lacks,
// or a nil lats, has them read from its history.
func stats(runs []*results.Run, lats map[*results.Run][]time.Duration) []scenarioStats {
	var out []scenarioStats
	at := map[string]int{}
	for _, r := range runs {
		i, ok := at[r.Label()]
		if !ok {
			i = len(out)
			at[r.Label()] = i
			out = append(out, scenarioStats{Label: r.Label(), Expect: expect(r).String(), Broken: !expect(r).Pass()})
		}
		s := &out[i]
		s.Runs = append(s.Runs, r)
		switch _, violated := r.Result.FirstViolation(); {
		case r.Result.ScheduleErr != "":
			s.ScheduleErrors++
		case violated || r.Result.Verdict == checker.VerdictViolation:
			s.Found++
		}
		if r.Result.Met {
			s.Met++
			if s.Broken {
				s.Detected++
			}
		}
	}
	for i := range out {
		var ds []time.Duration
		for _, r := range out[i].Runs {
			ds = append(ds, r.Result.Timings.Total.D())
		}
		out[i].P50, out[i].P90, out[i].Max = percentiles(ds)
		out[i].opStats(lats)
	}
	return out
}

// opStats fills in the time to first violation and the operations'
// latency from the runs' checks and latencies (see stats).
func (s *scenarioStats) opStats(lats map[*results.Run][]time.Duration) {
	var firsts, all []time.Duration
	for _, r := range s.Runs {
		if t, ok := r.Result.FirstViolation(); ok {
			firsts = append(firsts, t)
		}
		l, ok := lats[r]
		if !ok {
			l = latencies(&r.History)
		}
		all = append(all, l...)
	}
	s.Violated, s.Ops = len(firsts), len(all)
	s.FirstViolation, _, _ = percentiles(firsts)
	s.OpP50, s.OpP90, _ = percentiles(all)
	s.OpP99 = rank(slices.Sorted(slices.Values(all)), 0.99)
}

// percentiles returns the median, the 90th percentile (nearest rank) and
// the maximum of ds.
func percentiles(ds []time.Duration) (p50, p90, maxD time.Duration) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	ds = slices.Sorted(slices.Values(ds))
	return rank(ds, 0.5), rank(ds, 0.9), ds[len(ds)-1]
}

// rank is the q-quantile of the sorted ds by nearest rank, 0 for none.
func rank(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(q*float64(len(ds))+0.999999) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

// round keeps durations readable on pages: 10 ms steps.
func round(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }

// latencies lists the latency (Return-Call) of each of h's operations
// that a scenario's statistics count, in the order they come.
func latencies(h *checker.History) []time.Duration {
	var out []time.Duration
	for i := range h.Ops {
		if op := &h.Ops[i]; countsLatency(op) {
			out = append(out, op.Return-op.Call)
		}
	}
	return out
}

// countsLatency says whether op's latency is among a scenario's: a
// completed operation that is neither a leader observation nor a crash.
func countsLatency(op *checker.Operation) bool {
	return op.Outcome == checker.OutcomeOK && !isLeaderOp(op) && op.Kind != checker.KindCrash
}
