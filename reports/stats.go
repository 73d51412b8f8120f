package reports

import (
	"slices"
	"time"
)

// scenarioStats is how the runs of one scenario (and variant) went.
type scenarioStats struct {
	Label  string
	Expect string
	// Broken says that the scenario expects a violation.
	Broken bool
	Runs   []*Run
	Met    int
	// Detected counts the runs of a broken scenario that found the
	// violation it expects (expectation met).
	Detected int
	P50, P90 time.Duration
	Max      time.Duration
}

// DetectionRate is Detected/len(Runs), for a broken scenario.
func (s scenarioStats) DetectionRate() float64 {
	if len(s.Runs) == 0 {
		return 0
	}
	return float64(s.Detected) / float64(len(s.Runs))
}

// stats groups the runs by scenario label, in the order the runs come.
func stats(runs []*Run) []scenarioStats {
	var out []scenarioStats
	at := map[string]int{}
	for _, r := range runs {
		i, ok := at[r.Label()]
		if !ok {
			i = len(out)
			at[r.Label()] = i
			out = append(out, scenarioStats{Label: r.Label(), Expect: r.Expect().String(), Broken: !r.Expect().Pass()})
		}
		s := &out[i]
		s.Runs = append(s.Runs, r)
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
	}
	return out
}

// percentiles returns the median, the 90th percentile (nearest rank) and
// the maximum of ds.
func percentiles(ds []time.Duration) (p50, p90, maxD time.Duration) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	ds = slices.Sorted(slices.Values(ds))
	rank := func(q float64) time.Duration {
		i := int(q*float64(len(ds))+0.999999) - 1
		return ds[min(max(i, 0), len(ds)-1)]
	}
	return rank(0.5), rank(0.9), ds[len(ds)-1]
}

// round keeps durations readable on pages: 10 ms steps.
func round(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
