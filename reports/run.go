package reports

import (
	"strings"

	"github.com/etcdsim/etcdsim/checker"
)

// Label names the run's scenario as simrun does: its name, with the
// variant in brackets if it has one.
func (r *Run) Label() string {
	if r.Variant == "" {
		return r.Result.Scenario.Name
	}
	return r.Result.Scenario.Name + "[" + r.Variant + "]"
}

// Family is the first part of the scenario's name: "lock", "election"….
func (r *Run) Family() string {
	name := r.Result.Scenario.Name
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return name
}

// Expect is the run's expectation in words.
func (r *Run) Expect() checker.Expectation { return r.Result.Scenario.Expect }

// variantOf reads the variant from a run directory relative to its
// results directory: <scenario>/<variant>/seed-<n>.
func variantOf(rel string) string {
	parts := strings.Split(rel, "/")
	if len(parts) == 3 {
		return parts[1]
	}
	return ""
}

// violationSentences lists every violation's sentence, checker first.
func (r *Run) violationSentences() []string {
	var out []string
	for _, c := range flatten(r.Result.Checks) {
		for _, v := range c.Violations {
			out = append(out, c.Checker+": "+v.Message)
		}
		if c.Invalid != nil {
			out = append(out, c.Checker+": invalid history: "+c.Invalid.Message)
		}
	}
	return out
}
