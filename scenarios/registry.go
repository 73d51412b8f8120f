package scenarios

import (
	"fmt"
	"path"
	"strings"

	"github.com/etcdsim/etcdsim/internal/suggest"
)

// All returns every registered scenario: each correct recipe of every
// family under the standard fault mix, expecting a pass, then each pitfall
// of the gallery under the schedule that exposes it, expecting the
// violation its recipe's registry entry names, family by family in the
// order of Families; then correct recipes with etcd's authentication on,
// their tokens ended mid-run; then the reproductions of reports against
// etcd (Upstream), report by report. The same list feeds go test and
// simrun.
func All() []Scenario {
	var out []Scenario
	for _, f := range families {
		out = append(out, f.gallery()...)
	}
	out = append(out, authScenarios()...)
	return append(out, upstreamScenarios()...)
}

// Lookup returns the registered scenario called name. For an unknown name
// the error lists the registered names, the closest first.
func Lookup(name string) (Scenario, error) { return LookupIn(All(), name) }

// LookupIn returns the scenario of list called name — a program's own
// scenarios beside the registered ones, say. For an unknown name the
// error lists the names there are, the closest first.
func LookupIn(list []Scenario, name string) (Scenario, error) {
	for _, s := range list {
		if s.Name == name {
			return s, nil
		}
	}
	return Scenario{}, fmt.Errorf("scenarios: no scenario named %q; closest: %s", name, closest(list, name))
}

// closest lists the names of list nearest to name, at most eight.
func closest(list []Scenario, name string) string {
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.Name
	}
	near := suggest.Nearest(name, names)
	if len(near) > 8 {
		near = append(near[:8], fmt.Sprintf("… (%d in all; see simrun list)", len(names)))
	}
	return strings.Join(near, ", ")
}

// Match returns the registered scenarios whose names match pattern: an
// exact name, a prefix ending in '/' ("lock/"), or a glob ("lock/*/pause-*",
// where '*' does not cross '/'; "lock/*" matches every lock scenario).
func Match(pattern string) ([]Scenario, error) { return MatchIn(All(), pattern) }

// MatchIn returns the scenarios of list whose names match pattern, as
// Match does. A pattern that matches nothing is an error naming the
// closest names.
func MatchIn(list []Scenario, pattern string) ([]Scenario, error) {
	var out []Scenario
	for _, s := range list {
		ok := s.Name == pattern || strings.HasSuffix(pattern, "/") && strings.HasPrefix(s.Name, pattern)
		if !ok {
			m, err := path.Match(pattern, s.Name)
			if err != nil {
				return nil, fmt.Errorf("scenarios: bad pattern %q: %w", pattern, err)
			}
			// "lock/*" also matches the scenarios below lock/.
			ok = m || strings.HasSuffix(pattern, "/*") && strings.HasPrefix(s.Name, strings.TrimSuffix(pattern, "*"))
		}
		if ok {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("scenarios: no scenario matches %q; closest: %s", pattern, closest(list, pattern))
	}
	return out, nil
}
