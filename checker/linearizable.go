package checker

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// defaultLinTimeout bounds a linearizability search when LinOptions leaves
// Timeout zero.
const defaultLinTimeout = 10 * time.Second

// LinOptions configures the linearizability checkers. The zero value
// searches for at most 10 s and keeps 20 violations.
type LinOptions struct {
	// Timeout bounds the whole search, over every partition. 0 means 10 s;
	// negative means no limit (the problem is NP-hard: a large history may
	// then run for a very long time). Partitions the search did not finish
	// make the verdict unknown, never ok.
	Timeout time.Duration
	// MaxViolations caps the violations kept in the result (one per
	// partition that is not linearizable): 0 means 20, negative keeps all.
	MaxViolations int
}

func (o LinOptions) budget() time.Duration {
	switch {
	case o.Timeout == 0:
		return defaultLinTimeout
	case o.Timeout < 0:
		return 0 // porcupine: no limit
	default:
		return o.Timeout
	}
}

// LinResult is the result of a linearizability check. Besides the Result it
// can draw porcupine's HTML timeline of the history, with the faults and the
// violating operations annotated. It serializes to JSON as its Result.
type LinResult struct {
	Result
	vis *linVis // nil when the check did not get as far as porcupine
}

// linVis is what Visualize needs to run porcupine again, verbosely.
type linVis struct {
	model       porcupine.Model
	parts       [][]porcupine.Operation
	timeout     time.Duration
	annotations []porcupine.Annotation
}

// linPartition is one independently checked part of a history: the
// operations on one key, as porcupine operations whose Metadata is the index
// of the operation in History.Ops.
type linPartition struct {
	key string
	ops []porcupine.Operation
}

// clientIDs numbers a history's clients for porcupine, in sorted order.
func clientIDs(h *History) map[string]int {
	var names []string
	seen := map[string]bool{}
	for i := range h.Ops {
		if c := h.Ops[i].Client; !seen[c] {
			seen[c] = true
			names = append(names, c)
		}
	}
	slices.Sort(names)
	ids := make(map[string]int, len(names))
	for i, n := range names {
		ids[n] = i
	}
	return ids
}

// porcupineOp converts an operation for porcupine.
func porcupineOp(h *History, i int, ids map[string]int, in, out any) porcupine.Operation {
	op := &h.Ops[i]
	return porcupine.Operation{
		ClientId: ids[op.Client],
		Input:    in,
		Call:     int64(op.Call),
		Output:   out,
		Return:   int64(op.End()),
		Metadata: i,
	}
}

// checkLinearizable runs porcupine over each partition in turn, sharing one
// time budget, and reports each partition that is not linearizable.
func checkLinearizable(h *History, rep *report, noun string, model porcupine.Model, parts []linPartition, opts LinOptions) LinResult {
	budget := opts.budget()
	ids := clientIDs(h)
	model.DescribeOperationMetadata = func(info any) string {
		if i, ok := info.(int); ok && i >= 0 && i < len(h.Ops) {
			return h.Ops[i].String()
		}
		return ""
	}
	vis := &linVis{model: model, timeout: budget}
	var undecidedKeys []string
	legal, ops := 0, 0
	start := time.Now()
	for _, p := range parts {
		vis.parts = append(vis.parts, p.ops)
		ops += len(p.ops)
		remaining := budget
		if budget > 0 {
			remaining = budget - time.Since(start)
			if remaining <= 0 {
				undecidedKeys = append(undecidedKeys, p.key)
				continue
			}
		}
		res, info := porcupine.CheckOperationsVerbose(model, p.ops, remaining)
		switch res {
		case porcupine.Ok:
			legal++
		case porcupine.Illegal:
			culprit, longest := explainIllegal(p.ops, info)
			var proof []*Operation
			var which string
			if culprit >= 0 {
				op := &h.Ops[culprit]
				proof = append(proof, op)
				which = sprintf("; no order of its operations explains %s", op)
				vis.annotations = append(vis.annotations, porcupine.Annotation{
					ClientId:        ids[op.Client],
					Start:           int64(op.Call),
					End:             int64(op.End()),
					Description:     "violation",
					Details:         sprintf("%s %s is not linearizable at %s", noun, p.key, op),
					BackgroundColor: "#ff9b9b",
				})
			}
			rep.violation(ViolationNotLinearizable, proof, "%s %s is not linearizable%s; the longest linearizable prefix holds %d of its %d operations",
				noun, p.key, which, longest, len(p.ops))
		default:
			undecidedKeys = append(undecidedKeys, p.key)
		}
	}
	for _, f := range h.Faults {
		end := f.End
		if f.InForce() {
			end = h.lastTime()
		}
		details := f.Detail
		if len(f.Targets) > 0 {
			details = sprintf("targets %v %s", f.Targets, f.Detail)
		}
		vis.annotations = append(vis.annotations, porcupine.Annotation{
			Tag:             "faults",
			Start:           int64(f.Start),
			End:             int64(end),
			Description:     f.Name,
			Details:         details,
			BackgroundColor: "#ffe7a8",
		})
	}
	rep.res.Metrics["partitions"] = float64(len(parts))
	rep.res.Metrics["operations"] = float64(ops)
	rep.res.Metrics["linearizable_partitions"] = float64(legal)
	rep.res.Metrics["undecided_partitions"] = float64(len(undecidedKeys))
	undecided := ""
	switch {
	case len(undecidedKeys) > 0:
		undecided = sprintf("search timed out after %s on %s %v", budget, plural(len(undecidedKeys), noun), undecidedKeys)
	case len(parts) == 0:
		undecided = sprintf("no %s operations", noun)
	}
	summary := sprintf("%s in %s", plural(ops, "operation"), plural(len(parts), noun))
	return LinResult{Result: rep.done(summary, undecided), vis: vis}
}

// explainIllegal searches again, verbosely, and returns the operation (an
// index in History.Ops) that the longest partial linearization could not
// take next, and that linearization's length. It returns -1 if it cannot
// tell.
func explainIllegal(ops []porcupine.Operation, info porcupine.LinearizationInfo) (culprit, longest int) {
	partials := info.PartialLinearizations()
	var best []int
	for _, part := range partials {
		for _, seq := range part {
			if len(seq) > len(best) {
				best = seq
			}
		}
	}
	in := make([]bool, len(ops))
	for _, id := range best {
		if id >= 0 && id < len(ops) {
			in[id] = true
		}
	}
	culprit, at := -1, -1
	for i := range ops {
		if in[i] {
			continue
		}
		if at < 0 || cmp.Or(cmp.Compare(ops[i].Return, ops[at].Return), cmp.Compare(ops[i].Call, ops[at].Call)) < 0 {
			at = i
		}
	}
	if at >= 0 {
		culprit = ops[at].Metadata.(int)
	}
	return culprit, len(best)
}

// Visualize writes porcupine's HTML timeline of the checked history: each
// partition with its (partial) linearizations, the fault windows in a
// "faults" row, and the violating operations highlighted. It runs the
// search again, verbosely, within the check's time budget.
func (r LinResult) Visualize(w io.Writer) error {
	if r.vis == nil {
		return errors.New("checker: visualize: the history was not checked for linearizability")
	}
	model := r.vis.model
	parts := r.vis.parts
	var flat []porcupine.Operation
	for _, p := range parts {
		flat = append(flat, p...)
	}
	model.Partition = func([]porcupine.Operation) [][]porcupine.Operation { return parts }
	_, info := porcupine.CheckOperationsVerbose(model, flat, r.vis.timeout)
	info.AddAnnotations(r.vis.annotations)
	if err := porcupine.Visualize(model, info, w); err != nil {
		return fmt.Errorf("checker: visualize: %w", err)
	}
	return nil
}

// VisualizePath writes the visualization to the file at path.
func (r LinResult) VisualizePath(path string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("checker: visualize: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("checker: visualize: %w", cerr)
		}
	}()
	return r.Visualize(f)
}
