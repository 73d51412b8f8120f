package reports

import (
	"strings"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// runPageFile is a run's page, written into its directory beside its JSON.
const runPageFile = "report.html"

// family is the first part of the run's scenario name: "lock",
// "election"….
func family(r *results.Run) string {
	name, _, _ := strings.Cut(r.Result.Scenario.Name, "/")
	return name
}

// expect is the run's expectation.
func expect(r *results.Run) checker.Expectation { return r.Result.Scenario.Expect }

// violationSentences lists every violation's sentence, checker first.
func violationSentences(r *results.Run) []string {
	var out []string
	for _, c := range flatten(r.Result.Checks) {
		for _, v := range c.Violations {
			out = append(out, string(c.Checker)+": "+v.Message)
		}
		if c.Invalid != nil {
			out = append(out, string(c.Checker)+": invalid history: "+c.Invalid.Message)
		}
	}
	return out
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
