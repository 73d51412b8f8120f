package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/etcdsim/etcdsim/internal/suggest"
)

// Expectation is what a run is expected to show, so that a scenario that
// provokes a bug on purpose can say which finding proves it was provoked.
//
// The zero Expectation is a pass: every checker ok. Otherwise the checker
// named Checker must report a violation, of kind Violation if that is set.
type Expectation struct {
	// Checker names the checker expected to find a violation
	// (CheckerMutualExclusion, ...). Empty means every checker is
	// expected to pass.
	Checker Name `json:"checker"`
	// Violation is the kind of violation expected of Checker. Empty means
	// any kind; it must be empty when Checker is.
	Violation ViolationKind `json:"violation,omitempty"`
}

// Pass reports whether e is the zero Expectation: every checker ok.
func (e Expectation) Pass() bool { return e == Expectation{} }

// String renders e as "pass", "violation of mutual-exclusion" or
// "violation of mutual-exclusion (overlap)".
func (e Expectation) String() string {
	switch {
	case e.Pass():
		return "pass"
	case e.Violation == "":
		return "violation of " + string(e.Checker)
	case e.Checker == "":
		return sprintf("violation (%s)", e.Violation)
	default:
		return sprintf("violation of %s (%s)", e.Checker, e.Violation)
	}
}

// Validate returns an error if e names a checker this package does not
// have, or a kind of violation its checker never reports, listing the
// names that would do, the nearest first.
func (e Expectation) Validate() error {
	if e.Pass() {
		return nil
	}
	if e.Checker == "" {
		var reporters []string
		for _, j := range judges {
			if slices.Contains(j.Reports, e.Violation) {
				reporters = append(reporters, string(j.Name))
			}
		}
		if len(reporters) == 0 {
			reporters = nearestJudges(string(e.Violation))
		}
		return fmt.Errorf("checker: expectation: violation %q without a checker (one of %s)", e.Violation, strings.Join(reporters, ", "))
	}
	j, ok := LookupJudge(e.Checker)
	if !ok {
		return fmt.Errorf("checker: expectation: %w", noJudge(e.Checker))
	}
	if e.Violation != "" && !slices.Contains(j.Reports, e.Violation) {
		var valid []string
		for _, k := range j.Reports {
			valid = append(valid, string(k))
		}
		return fmt.Errorf("checker: expectation: %s never reports %q (it reports %s)", e.Checker, e.Violation, strings.Join(suggest.Nearest(string(e.Violation), valid), ", "))
	}
	return nil
}

// Met reports whether results meet e, and says why in one sentence.
// Combined results are searched through their Parts.
//
// A pass is met when there is at least one result and every result, and
// every part of one, is ok; unknown and invalid do not count as ok. A
// violation is met when some result named e.Checker has the verdict
// violation and, if e.Violation is set, keeps a violation of that kind (a
// result keeps at most its checker's MaxViolations). Unknown and invalid
// never meet a violation. An Expectation with a Violation but no Checker is
// never met.
func (e Expectation) Met(results ...Result) (bool, string) {
	all := flatten(results)
	switch {
	case len(all) == 0:
		return false, "nothing was checked"
	case e.Pass():
		return metPass(all)
	case e.Checker == "":
		return false, e.Validate().Error()
	}
	var why string
	found := false
	for _, r := range all {
		if r.Checker != e.Checker {
			continue
		}
		found = true
		ok, w := e.metBy(r)
		if ok {
			return true, w
		}
		// Prefer explaining a violation of another kind to an ok.
		if why == "" || r.Verdict == VerdictViolation {
			why = w
		}
	}
	if !found {
		var have []string
		for _, r := range all {
			have = append(have, string(r.Checker))
		}
		return false, sprintf("no %s result among %s", e.Checker, strings.Join(have, ", "))
	}
	return false, why
}

// metPass judges a pass: the worst result that is not ok — invalid, then
// a violation, then unknown; the first of those, preferring one that is
// not a combination — says why not, so that a run's summary names its
// worst finding rather than a check that could not decide.
func metPass(all []Result) (bool, string) {
	var bad *Result
	for i := range all {
		r := &all[i]
		if r.Verdict == VerdictOK {
			continue
		}
		switch {
		case bad == nil, r.Verdict.severity() > bad.Verdict.severity():
			bad = r
		case r.Verdict.severity() == bad.Verdict.severity() && len(bad.Parts) > 0 && len(r.Parts) == 0:
			bad = r
		}
	}
	if bad != nil {
		return false, sprintf("%s is %s: %s", bad.Checker, bad.Verdict, firstFinding(*bad))
	}
	return true, sprintf("all %s ok", plural(countLeaves(all), "check"))
}

// metBy judges a violation expectation against one result of its checker.
func (e Expectation) metBy(r Result) (bool, string) {
	if r.Verdict != VerdictViolation {
		return false, sprintf("%s is %s: %s", r.Checker, r.Verdict, firstFinding(r))
	}
	if e.Violation == "" {
		return true, sprintf("%s found a violation: %s", r.Checker, firstFinding(r))
	}
	var other []string
	for _, v := range r.Violations {
		if v.Kind == e.Violation {
			return true, sprintf("%s found %s: %s", r.Checker, v.Kind, v.Message)
		}
		name := string(v.Kind)
		if name == "" {
			name = "a violation of no kind"
		}
		if !slices.Contains(other, name) {
			other = append(other, name)
		}
	}
	if len(other) == 0 {
		return false, sprintf("%s found a violation but kept none of kind %s", r.Checker, e.Violation)
	}
	return false, sprintf("%s found %s, not %s", r.Checker, strings.Join(other, ", "), e.Violation)
}

// flatten returns results and, after each, its parts, depth first.
func flatten(results []Result) []Result {
	var out []Result
	for _, r := range results {
		out = append(out, r)
		out = append(out, flatten(r.Parts)...)
	}
	return out
}

// countLeaves counts the results that are not combinations.
func countLeaves(all []Result) int {
	n := 0
	for _, r := range all {
		if len(r.Parts) == 0 {
			n++
		}
	}
	return n
}

// firstFinding is the first sentence that explains r's verdict.
func firstFinding(r Result) string {
	switch {
	case r.Invalid != nil:
		return r.Invalid.Message
	case len(r.Violations) > 0:
		return r.Violations[0].Message
	default:
		return r.Summary
	}
}
