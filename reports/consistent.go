package reports

import (
	"errors"
	"fmt"

	"github.com/etcdsim/etcdsim/checker"
)

// consistent checks that the history is valid and agrees with the result
// beside it: the same run, as many operations as the result counts, and
// every operation a violation names present in the history as the
// violation has it. A hand-edited or mismatched pair of files fails here
// rather than drawing a page that lies.
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
	if res.Ops != len(h.Ops) {
		errs = append(errs, fmt.Errorf("%d operations, but %s counts %d", len(h.Ops), resultFile, res.Ops))
	}
	byID := make(map[int]*checker.Operation, len(h.Ops))
	for i := range h.Ops {
		byID[h.Ops[i].ID] = &h.Ops[i]
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

// flatten lists results and, depth first, their parts.
func flatten(rs []checker.Result) []checker.Result {
	var out []checker.Result
	for _, r := range rs {
		out = append(out, r)
		out = append(out, flatten(r.Parts)...)
	}
	return out
}
