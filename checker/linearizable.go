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

	"github.com/etcdsim/etcdsim/internal/wallclock"
)

// defaultLinTimeout bounds a linearizability search when LinOptions leaves
// Timeout zero.
const defaultLinTimeout = 10 * time.Second

// LinOptions configures the linearizability checkers. The zero value
// searches for at most 10 s and keeps 20 violations.
type LinOptions struct {
	// Timeout bounds the whole search, over every partition, in wall time
	// (in a synctest bubble too, whose clock stands still while the search
	// computes). 0 means 10 s;
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
		return 0 // no limit
	default:
		return o.Timeout
	}
}

// LinResult is the result of a linearizability check. Besides the Result it
// can draw porcupine's HTML timeline of the history, with the faults and the
// violating operations annotated. It serializes to JSON as its Result.
type LinResult struct {
	Result
	vis *linVis // nil when the check did not get as far as the search
}

// linVis is what Visualize needs to run porcupine over the checked
// partitions, verbosely. It is built only when Visualize is called.
type linVis struct {
	timeout   time.Duration
	undecided bool // the check's own search ran out of time on a partition
	build     func() (porcupine.Model, [][]porcupine.Operation, []porcupine.Annotation)
}

// linPart is one independently checked part of a history: the operations
// on one key.
type linPart[O any] struct {
	key string
	ops []linOp[O]
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

// linCulprit is an operation (an index in History.Ops) that no order of
// the operations on key explains.
type linCulprit struct {
	key string
	op  int
}

// checkLinearizable searches each partition in turn, sharing one time
// budget, and reports each partition that is not linearizable.
func checkLinearizable[S comparable, O any](h *History, rep *report, noun string, m *linModel[S, O], parts []linPart[O], opts LinOptions) LinResult {
	budget := opts.budget()
	var deadline time.Time
	if budget > 0 {
		// The budget is wall time, so that it runs out in a synctest
		// bubble too: the search only computes, and the bubble's clock
		// stands still while it does.
		deadline = wallclock.Now().Add(budget)
	}
	var undecidedKeys []string
	var culprits []linCulprit
	legal, ops := 0, 0
	for _, p := range parts {
		ops += len(p.ops)
		if !deadline.IsZero() && !wallclock.Now().Before(deadline) {
			undecidedKeys = append(undecidedKeys, p.key)
			continue
		}
		switch res, longest := linSearch(m, p.ops, deadline); res {
		case linOK:
			legal++
		case linIllegal:
			culprit := explainIllegal(p.ops, longest)
			var proof []*Operation
			var which string
			if culprit >= 0 {
				op := &h.Ops[culprit]
				proof = append(proof, op)
				which = sprintf("; no order of its operations explains %s", op)
				culprits = append(culprits, linCulprit{key: p.key, op: culprit})
			}
			rep.violation(ViolationNotLinearizable, proof, "%s %s is not linearizable%s; the longest linearizable prefix holds %d of its %d operations",
				noun, p.key, which, len(longest), len(p.ops))
		default:
			undecidedKeys = append(undecidedKeys, p.key)
		}
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
	vis := &linVis{timeout: budget, undecided: len(undecidedKeys) > 0, build: func() (porcupine.Model, [][]porcupine.Operation, []porcupine.Annotation) {
		return linPorcupine(h, noun, m, parts, culprits)
	}}
	return LinResult{Result: rep.done(summary, undecided), vis: vis}
}

// linPorcupine converts a checked history for porcupine's visualization:
// the model, the partitions, and annotations for the culprits and the
// faults.
func linPorcupine[S comparable, O any](h *History, noun string, m *linModel[S, O], parts []linPart[O], culprits []linCulprit) (porcupine.Model, [][]porcupine.Operation, []porcupine.Annotation) {
	model := m.porcupine()
	model.DescribeOperationMetadata = func(info any) string {
		if i, ok := info.(int); ok && i >= 0 && i < len(h.Ops) {
			return h.Ops[i].String()
		}
		return ""
	}
	ids := clientIDs(h)
	pops := make([][]porcupine.Operation, 0, len(parts))
	for _, p := range parts {
		ops := make([]porcupine.Operation, 0, len(p.ops))
		for _, o := range p.ops {
			ops = append(ops, porcupine.Operation{
				ClientId: ids[h.Ops[o.index].Client],
				Input:    o.op,
				Call:     o.call,
				Return:   o.ret,
				Metadata: o.index,
			})
		}
		pops = append(pops, ops)
	}
	var annotations []porcupine.Annotation
	for _, c := range culprits {
		op := &h.Ops[c.op]
		annotations = append(annotations, porcupine.Annotation{
			ClientId:        ids[op.Client],
			Start:           int64(op.Call),
			End:             int64(op.End()),
			Description:     "violation",
			Details:         sprintf("%s %s is not linearizable at %s", noun, c.key, op),
			BackgroundColor: "#ff9b9b",
		})
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
		annotations = append(annotations, porcupine.Annotation{
			Tag:             "faults",
			Start:           int64(f.Start),
			End:             int64(end),
			Description:     f.Name,
			Details:         details,
			BackgroundColor: "#ffe7a8",
		})
	}
	return model, pops, annotations
}

// explainIllegal returns the operation (an index in History.Ops) that the
// longest partial linearization (indexes in ops) could not take next: of
// the operations it leaves out, the one that returns first. It returns -1
// if it leaves none out.
func explainIllegal[O any](ops []linOp[O], longest []int) int {
	in := make([]bool, len(ops))
	for _, i := range longest {
		in[i] = true
	}
	at := -1
	for i := range ops {
		if in[i] {
			continue
		}
		if at < 0 || cmp.Or(cmp.Compare(ops[i].ret, ops[at].ret), cmp.Compare(ops[i].call, ops[at].call)) < 0 {
			at = i
		}
	}
	if at < 0 {
		return -1
	}
	return ops[at].index
}

// Visualize writes porcupine's HTML timeline of the checked history: each
// partition with its (partial) linearizations, the fault windows in a
// "faults" row, and the violating operations highlighted. It runs
// porcupine's search again, verbosely, within the check's time budget.
//
// porcupine bounds its search with a timer of the time package, which in a
// synctest bubble is virtual and does not fire while the search computes.
// There Visualize draws only a check whose own search decided every
// partition, since porcupine's search takes the same steps, and it refuses
// one that ran out of time: call it outside the bubble for that.
func (r LinResult) Visualize(w io.Writer) error {
	if r.vis == nil {
		return errors.New("checker: visualize: the history was not checked for linearizability")
	}
	if r.vis.undecided && wallclock.Virtual() {
		return errors.New("checker: visualize: the check's search ran out of time, and in a synctest bubble porcupine's would run without limit (its timer is on the bubble's clock, which stands still while it computes): visualize outside the bubble")
	}
	model, parts, annotations := r.vis.build()
	var flat []porcupine.Operation
	for _, p := range parts {
		flat = append(flat, p...)
	}
	model.Partition = func([]porcupine.Operation) [][]porcupine.Operation { return parts }
	_, info := porcupine.CheckOperationsVerbose(model, flat, r.vis.timeout)
	info.AddAnnotations(annotations)
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
