package checker

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Result is what a checker returns. It is plain data and serializes to JSON
// for reports.
type Result struct {
	// Checker names the checker (CheckerMutualExclusion, ...) or, for a
	// combined result, the combination.
	Checker Name    `json:"checker"`
	Verdict Verdict `json:"verdict"`
	// Summary says in one line what was checked and found.
	Summary string `json:"summary"`
	// Violations prove a VerdictViolation, each with its operations. At
	// most the checker's MaxViolations are kept; Metrics["violations"]
	// counts them all.
	Violations []Violation `json:"violations,omitempty"`
	// Invalid explains a VerdictInvalid, naming the first offending
	// operation.
	Invalid *Violation `json:"invalid,omitempty"`
	// Metrics are counters a report can render ("holds",
	// "stale_rejected"...).
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Distributions summarize measured durations (e.g. "staleness").
	Distributions map[string]Distribution `json:"distributions,omitempty"`
	// Parts are the results a combined result was made of.
	Parts []Result `json:"parts,omitempty"`
}

// Violation is one finding: what kind it is, a sentence a person can read,
// and the operations that prove it.
type Violation struct {
	// Kind names the finding (ViolationOverlap, ...), one of those its
	// checker reports. It is empty in Result.Invalid, which is no finding.
	Kind    ViolationKind `json:"kind,omitempty"`
	Message string        `json:"message"`
	Ops     []Operation   `json:"ops,omitempty"`
}

// OpIDs returns the IDs of the violation's operations.
func (v Violation) OpIDs() []int {
	ids := make([]int, len(v.Ops))
	for i, op := range v.Ops {
		ids[i] = op.ID
	}
	return ids
}

// Err returns nil when the verdict is ok, and otherwise an error that says
// why: the invalid operation, every kept violation, or the summary of an
// undecided check. A test wrapper is one line:
//
//	if err := checker.MutualExclusion(h, checker.MutexOptions{}).Err(); err != nil {
//		t.Fatal(err)
//	}
func (r Result) Err() error {
	if r.Verdict == VerdictOK {
		return nil
	}
	var errs []error
	if r.Invalid != nil {
		errs = append(errs, fmt.Errorf("checker: %s: invalid history: %s", r.Checker, r.Invalid.Message))
	}
	for _, v := range r.Violations {
		errs = append(errs, fmt.Errorf("checker: %s: %s", r.Checker, v.Message))
	}
	for _, p := range r.Parts {
		if err := p.Err(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		errs = append(errs, fmt.Errorf("checker: %s: %s: %s", r.Checker, r.Verdict, r.Summary))
	}
	return errors.Join(errs...)
}

// Combine joins results into one named name. Its verdict is the most severe
// of theirs, in the order invalid, violation, unknown, ok; with no results
// it is unknown, since nothing was checked. The results are kept as Parts.
func Combine(name string, results ...Result) Result {
	c := Result{Checker: Name(name), Verdict: VerdictUnknown, Parts: slices.Clone(results)}
	if len(results) == 0 {
		c.Summary = "nothing was checked"
		return c
	}
	c.Verdict = VerdictOK
	count := map[Verdict]int{}
	for _, r := range results {
		count[r.Verdict]++
		if r.Verdict.severity() > c.Verdict.severity() {
			c.Verdict = r.Verdict
		}
	}
	var parts []string
	for _, v := range []Verdict{VerdictOK, VerdictViolation, VerdictUnknown, VerdictInvalid} {
		if count[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[v], v))
		}
	}
	c.Summary = fmt.Sprintf("%d checks: %s", len(results), strings.Join(parts, ", "))
	return c
}

// Distribution summarizes a set of measured durations.
type Distribution struct {
	Count int           `json:"count"`
	Min   time.Duration `json:"min"`
	Mean  time.Duration `json:"mean"`
	P50   time.Duration `json:"p50"`
	P90   time.Duration `json:"p90"`
	P99   time.Duration `json:"p99"`
	Max   time.Duration `json:"max"`
}

// newDistribution summarizes samples (which it sorts in place).
func newDistribution(samples []time.Duration) Distribution {
	if len(samples) == 0 {
		return Distribution{}
	}
	slices.Sort(samples)
	var sum float64
	for _, s := range samples {
		sum += float64(s)
	}
	at := func(q float64) time.Duration {
		i := int(q*float64(len(samples)-1) + 0.5)
		return samples[i]
	}
	return Distribution{
		Count: len(samples),
		Min:   samples[0],
		Mean:  time.Duration(sum / float64(len(samples))),
		P50:   at(0.50),
		P90:   at(0.90),
		P99:   at(0.99),
		Max:   samples[len(samples)-1],
	}
}

// defaultMaxViolations is how many violations a result keeps when the
// options leave MaxViolations zero.
const defaultMaxViolations = 20

// report accumulates a checker's findings into a Result.
type report struct {
	res   Result
	max   int // violations kept; < 0 keeps all
	found int // violations found
}

func newReport(checker Name, maxViolations int) *report {
	if maxViolations == 0 {
		maxViolations = defaultMaxViolations
	}
	return &report{
		res: Result{Checker: checker, Metrics: map[string]float64{}},
		max: maxViolations,
	}
}

// violation records a finding of kind proved by ops.
func (r *report) violation(kind ViolationKind, ops []*Operation, format string, args ...any) {
	r.found++
	if r.max >= 0 && len(r.res.Violations) >= r.max {
		return
	}
	v := Violation{Kind: kind, Message: fmt.Sprintf(format, args...)}
	for _, op := range ops {
		if op != nil {
			v.Ops = append(v.Ops, *op)
		}
	}
	r.res.Violations = append(r.res.Violations, v)
}

// invalid ends the check with VerdictInvalid.
func (r *report) invalid(err error) Result {
	res := Result{Checker: r.res.Checker, Verdict: VerdictInvalid, Summary: err.Error()}
	v := &Violation{Message: err.Error()}
	var he *HistoryError
	if errors.As(err, &he) {
		v.Message = he.Reason
		if he.Op != nil {
			v.Message = he.Op.String() + ": " + he.Reason
			v.Ops = []Operation{*he.Op}
		}
	}
	res.Invalid = v
	return res
}

// done ends the check. Violations decide it; otherwise undecided (a reason
// why the check could not decide) makes it unknown; otherwise it is ok.
func (r *report) done(summary, undecided string) Result {
	res := r.res
	res.Metrics["violations"] = float64(r.found)
	switch {
	case r.found > 0:
		res.Verdict = VerdictViolation
		res.Summary = fmt.Sprintf("%s; %s", summary, plural(r.found, "violation"))
	case undecided != "":
		res.Verdict = VerdictUnknown
		res.Summary = fmt.Sprintf("%s; could not decide: %s", summary, undecided)
	default:
		res.Verdict = VerdictOK
		res.Summary = summary
	}
	return res
}
