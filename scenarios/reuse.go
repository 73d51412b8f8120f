package scenarios

import (
	"fmt"
	"strings"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/seed"
)

// Seeds returns each scenario of list n times, with the seeds first,
// first+1, …, first+n-1, scenario by scenario: one line runs a recipe's
// scenarios over many seeds in a go test,
//
//	for _, s := range scenarios.Seeds(1, 10, scenarios.LockSafety(my)...) {
//		scenarios.Test(t, s) // a failure names its seed and how to replay it
//	}
//
// The copies keep their names, so go test tells them apart as name#01,
// name#02, …; a failure's message names its seed. simrun has -seed and
// -runs for the same thing, so hand simrun.Main the scenarios themselves.
// n below 1 returns nothing.
func Seeds(first seed.Seed, n int, list ...Scenario) []Scenario {
	var out []Scenario
	for _, s := range list {
		for i := range n {
			c := s
			c.Seed = first + seed.Seed(i)
			out = append(out, c)
		}
	}
	return out
}

// reuse names recipe name as the scenario's recipe — its resolver, if
// resolver is set — renames s after it, and gives it that recipe's
// expectation and a description of its own.
func (s Scenario) reuse(name string, expect checker.Expectation, resolver bool) Scenario {
	orig := s.Name
	if resolver {
		s.Workload.Resolver = name
	} else {
		s.Workload.Recipe = name
	}
	// "lock/setnx/crash-holder" → "lock/mine/crash-holder"; an upstream
	// report's keeps the report's id, "upstream/etcd-22082/unlock-retry" →
	// "lock/mine/etcd-22082-unlock-retry"; a name that is not
	// family/recipe/fault → "lock/mine/<name>".
	if parts := strings.Split(s.Name, "/"); len(parts) == 3 && parts[0] == "upstream" {
		s.Name = s.Workload.Family + "/" + name + "/" + parts[1] + "-" + parts[2]
	} else if len(parts) >= 3 {
		parts[1] = name
		s.Name = strings.Join(parts, "/")
	} else {
		s.Name = s.Workload.Family + "/" + name + "/" + s.Name
	}
	s.Expect = expect
	s.Description = fmt.Sprintf("%s on the schedule of %s", name, orig)
	s.Upstream = nil
	return s.recordCommand()
}

// recipeOf returns a program's own recipe, *own, when the scenario has
// one, and else the registry's recipe called name, found by lookup.
func recipeOf[R any](own *R, name string, lookup func(string) (R, error)) (R, error) {
	if own != nil {
		return *own, nil
	}
	return lookup(name)
}
