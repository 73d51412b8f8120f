package simrun

import (
	"errors"
	"strings"

	"github.com/etcdsim/etcdsim/scenarios"
)

// match returns the scenarios of all whose names match one of patterns,
// each once, in the order of all. A pattern is what scenarios.Match takes:
// an exact name, a prefix ending in '/' ("lock/"), or a glob
// ("lock/*/pause-*"). It matches over all so that a program's own
// scenarios match too. A pattern that matches nothing is an error naming
// the closest names.
func match(all []scenarios.Scenario, patterns []string) ([]scenarios.Scenario, error) {
	seen := map[string]bool{}
	var out []scenarios.Scenario
	for _, p := range patterns {
		got, err := scenarios.MatchIn(all, p)
		if err != nil {
			return nil, errors.New(strings.TrimPrefix(err.Error(), "scenarios: "))
		}
		for _, s := range got {
			if !seen[s.Name] {
				seen[s.Name] = true
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// find returns the scenario of all called name.
func find(all []scenarios.Scenario, name string) (scenarios.Scenario, bool) {
	s, err := scenarios.LookupIn(all, name)
	return s, err == nil
}
