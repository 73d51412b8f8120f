package simrun

import (
	"fmt"
	"path"
	"strings"

	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/scenarios"
)

// match returns the scenarios of all whose names match one of patterns,
// each once, in the order of all. A pattern is what scenarios.Match takes:
// an exact name, a prefix ending in '/' ("lock/"), or a glob
// ("lock/*/pause-*"). It matches over all rather than calling
// scenarios.Match so that a program's own scenarios match too. A pattern
// that matches nothing is an error naming the closest names.
func match(all []scenarios.Scenario, patterns []string) ([]scenarios.Scenario, error) {
	seen := map[string]bool{}
	var out []scenarios.Scenario
	for _, p := range patterns {
		n := 0
		for _, s := range all {
			ok, err := matches(p, s.Name)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			n++
			if !seen[s.Name] {
				seen[s.Name] = true
				out = append(out, s)
			}
		}
		if n == 0 {
			return nil, unknownName(all, p)
		}
	}
	return out, nil
}

// matches reports whether name matches pattern, as scenarios.Match does.
func matches(pattern, name string) (bool, error) {
	if name == pattern || strings.HasSuffix(pattern, "/") && strings.HasPrefix(name, pattern) {
		return true, nil
	}
	m, err := path.Match(pattern, name)
	if err != nil {
		return false, fmt.Errorf("bad pattern %q: %w", pattern, err)
	}
	return m || strings.HasSuffix(pattern, "/*") && strings.HasPrefix(name, strings.TrimSuffix(pattern, "*")), nil
}

// unknownName is the error for a pattern that matches no scenario: it
// lists the closest names.
func unknownName(all []scenarios.Scenario, pattern string) error {
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.Name
	}
	near := recipe.Nearest(pattern, names)
	if len(near) > 8 {
		near = append(near[:8], fmt.Sprintf("… (%d in all; see simrun list)", len(names)))
	}
	return fmt.Errorf("no scenario matches %q; closest: %s", pattern, strings.Join(near, ", "))
}

// find returns the scenario of all called name.
func find(all []scenarios.Scenario, name string) (scenarios.Scenario, bool) {
	for _, s := range all {
		if s.Name == name {
			return s, true
		}
	}
	return scenarios.Scenario{}, false
}
