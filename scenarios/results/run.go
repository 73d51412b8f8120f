package results

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// Run is one run read back from its directory: its result and its
// history.
type Run struct {
	// Dir is the run's directory as it was given (ReadRun), or relative
	// to its results directory and slash-separated (ReadDir).
	Dir string
	// Variant names the overrides a campaign applied ("members-5"), read
	// from the run's place in its results directory (RunDir); "" for none,
	// and for a run read alone.
	Variant string
	Result  *scenarios.Result
	History checker.History
}

// Label names the run's scenario and variant (see Label).
func (r *Run) Label() string { return Label(r.Result.Scenario.Name, r.Variant) }

// ReadRun reads the run in dir: its result.json and history.json. A
// missing, truncated or hand-broken file, a newer version, or a history
// that does not agree with the result beside it is an error naming the
// file and what is wrong with it; a missing file's error wraps
// fs.ErrNotExist, a truncated one's ErrTruncated.
func ReadRun(dir string) (*Run, error) {
	return readRun(dir, dir)
}

// readRun reads the run in dir, naming its files after name in errors.
func readRun(dir, name string) (*Run, error) {
	rp, hp := filepath.Join(name, ResultFile), filepath.Join(name, HistoryFile)
	res, err := readResult(filepath.Join(dir, ResultFile), rp)
	if err != nil {
		return nil, err
	}
	if err := judgedAsChecked(res); err != nil {
		return nil, fmt.Errorf("results: %s: %w", rp, err)
	}
	h, err := readHistory(filepath.Join(dir, HistoryFile), hp)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Result: res, History: h}
	if err := r.consistent(); err != nil {
		return nil, fmt.Errorf("results: %s: %w", hp, err)
	}
	return r, nil
}

// consistent checks that the history is valid and agrees with the result
// beside it: the same run, as many operations as the result counts, and
// every operation a violation names present in the history as the
// violation has it. A hand-edited or mismatched pair of files fails here
// rather than being read as a run that never was.
func (r *Run) consistent() error {
	h, res := &r.History, r.Result
	if err := h.Validate(); err != nil {
		return err
	}
	var errs []error
	if h.Scenario != "" && h.Scenario != res.Scenario.Name {
		errs = append(errs, fmt.Errorf("history of scenario %q beside a result of %q", h.Scenario, res.Scenario.Name))
	}
	if h.Seed != res.Scenario.Seed {
		errs = append(errs, fmt.Errorf("history of seed %s beside a result of seed %s", h.Seed, res.Scenario.Seed))
	}
	// A history of version 7 and earlier kept the connections' calls
	// among the operations, and its result counted them there.
	if res.Ops != len(h.Ops) && res.Ops != len(h.Ops)+len(h.Calls) {
		errs = append(errs, fmt.Errorf("%d operations, but %s counts %d", len(h.Ops), ResultFile, res.Ops))
	}
	byID := make(map[int]*checker.Operation, len(h.Ops)+len(h.Calls))
	for _, ops := range [][]checker.Operation{h.Ops, h.Calls} {
		for i := range ops {
			byID[ops[i].ID] = &ops[i]
		}
	}
	for _, c := range flatten(res.Checks) {
		vs := c.Violations
		if c.Invalid != nil {
			vs = append(vs[:len(vs):len(vs)], *c.Invalid)
		}
		for _, v := range vs {
			for _, op := range v.Ops {
				got, ok := byID[op.ID]
				switch {
				case !ok:
					errs = append(errs, fmt.Errorf("%s violation %q names operation %d, which is not in the history", c.Checker, v.Message, op.ID))
				case got.Client != op.Client || got.Kind != op.Kind || got.Call != op.Call:
					errs = append(errs, fmt.Errorf("%s violation names %s, but the history has %s", c.Checker, op, got))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// judgedAsChecked checks that a result's verdict and judgement are what
// its checks make of them: a file edited by hand — a verdict or met
// changed, a check's verdict changed — reads as wrong, not as a run.
func judgedAsChecked(res *scenarios.Result) error {
	if want := checker.Combine(res.Scenario.Name, res.Checks...).Verdict; res.Verdict != want {
		return fmt.Errorf("it says verdict %s, but its checks combine to %s (edited by hand?)", res.Verdict, want)
	}
	met, _ := res.Scenario.Expect.Met(res.Checks...)
	met = met && res.ScheduleErr == ""
	if res.Met != met {
		return fmt.Errorf("it says met %v, but its checks and its expectation (%v) make it %v (edited by hand?)", res.Met, res.Scenario.Expect, met)
	}
	return nil
}

// flatten lists results and, depth first, their parts.
func flatten(rs []checker.Result) []checker.Result {
	var out []checker.Result
	for _, r := range rs {
		out = append(out, r)
		out = append(out, flatten(r.Parts)...)
	}
	return out
}
