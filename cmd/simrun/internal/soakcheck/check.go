package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

// window is how many runs each end's figure is the median of, so that
// what the run still going beside it holds does not decide.
const window = 10

// checkFile reads the summary at path and checks it; see check.
func checkFile(path string, from int, tol float64) (string, error) {
	s, err := results.ReadSummary(path)
	if err != nil {
		return "", err
	}
	return check(s, from, tol)
}

// check compares the parent's goroutines, RSS and open files at run from
// (1-based; the median of the window of runs starting there) with the
// last runs' (the median of the last window), and returns the figures as
// a table and, as one error, every figure that grew by more than tol of
// its starting value. Goroutines and files may also grow by 2 whatever
// tol says: a count of 20 moves by 2 as a run starts beside another. Heap
// in use is printed but not judged: it follows the GC's pace.
func check(s *results.Summary, from int, tol float64) (string, error) {
	var ps []results.ProcStats
	for i, r := range s.Runs {
		if r.Parent == nil {
			return "", fmt.Errorf("run %d (%s) has no parent figures: written by a simrun that does not record them, or resumed from an earlier campaign", i+1, r.Dir)
		}
		ps = append(ps, *r.Parent)
	}
	w := min(window, max(1, (len(ps)-from+1)/2))
	if from < 1 || from-1+2*w > len(ps) {
		return "", fmt.Errorf("%d runs: too few to compare run %d with the end", len(ps), from)
	}
	head, tail := ps[from-1:from-1+w], ps[len(ps)-w:]
	met := 0
	for _, r := range s.Runs {
		if r.Met {
			met++
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d runs (%d planned), %d met their expectation; medians of %d runs\n", len(s.Runs), s.Planned, met, w)
	fmt.Fprintf(&sb, "%-12s %14s %14s %8s\n", "parent", fmt.Sprintf("runs %d-%d", from, from+w-1), fmt.Sprintf("runs %d-%d", len(ps)-w+1, len(ps)), "growth")
	var errs []error
	judge := func(name string, get func(results.ProcStats) float64, slack float64, judged bool) {
		a, b := median(head, get), median(tail, get)
		growth := 0.0
		if a > 0 {
			growth = (b - a) / a
		}
		fmt.Fprintf(&sb, "%-12s %14.0f %14.0f %+7.1f%%\n", name, a, b, 100*growth)
		if judged && b > a*(1+tol)+slack {
			errs = append(errs, fmt.Errorf("parent %s grew from %.0f to %.0f (%+.1f%%), more than %.0f%%", name, a, b, 100*growth, 100*tol))
		}
	}
	judge("goroutines", func(p results.ProcStats) float64 { return float64(p.Goroutines) }, 2, true)
	judge("rss_bytes", func(p results.ProcStats) float64 { return float64(p.RSS) }, 0, true)
	judge("fds", func(p results.ProcStats) float64 { return float64(p.FDs) }, 2, true)
	judge("heap_inuse", func(p results.ProcStats) float64 { return float64(p.HeapInUse) }, 0, false)
	return sb.String(), errors.Join(errs...)
}

func median(ps []results.ProcStats, get func(results.ProcStats) float64) float64 {
	v := make([]float64, len(ps))
	for i, p := range ps {
		v[i] = get(p)
	}
	slices.Sort(v)
	return v[len(v)/2]
}
