package scenarios

import (
	"fmt"
	"strings"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/lock/barrier"
	"github.com/etcdsim/etcdsim/lock/queue"
	"github.com/etcdsim/etcdsim/lock/register"
	"github.com/etcdsim/etcdsim/lock/rwmutex"
	"github.com/etcdsim/etcdsim/lock/stm"
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

// WithLock returns lock scenario s — a registered one, say a pitfall's —
// with a user's lock recipe r in its place, as a scenario of r's own: its
// name's recipe part becomes r's name, its expectation r's (a pass, or
// the violation r's entry names if r is a broken recipe), and its
// description says that r runs on s's schedule. The schedule, workload and
// checkers stay s's. Validate reports a scenario of another family.
func (s Scenario) WithLock(r lock.Recipe) Scenario {
	s.Workload.Lock = &r
	return s.reuse(r.Name, r.Expect, false)
}

// WithElection is WithLock for an election recipe.
func (s Scenario) WithElection(r election.Recipe) Scenario {
	s.Workload.Election = &r
	return s.reuse(r.Name, r.Expect, false)
}

// WithRegistrar is WithLock for a discovery registrar. The scenario keeps
// its resolver.
func (s Scenario) WithRegistrar(r discovery.RegistrarRecipe) Scenario {
	s.Workload.Registrar = &r
	return s.reuse(r.Name, r.Expect, false)
}

// WithResolver is WithLock for a discovery resolver. The scenario keeps
// its registrar.
func (s Scenario) WithResolver(r discovery.ResolverRecipe) Scenario {
	s.Workload.ResolverRecipe = &r
	return s.reuse(r.Name, r.Expect, true)
}

// WithRWMutex is WithLock for a read-write lock recipe.
func (s Scenario) WithRWMutex(r rwmutex.Recipe) Scenario {
	s.Workload.RWMutex = &r
	return s.reuse(r.Name, r.Expect, false)
}

// WithQueue is WithLock for a queue recipe.
func (s Scenario) WithQueue(r queue.Recipe) Scenario {
	s.Workload.Queue = &r
	return s.reuse(r.Name, r.Expect, false)
}

// WithBarrier is WithLock for a double-barrier recipe.
func (s Scenario) WithBarrier(r barrier.Recipe) Scenario {
	s.Workload.Barrier = &r
	return s.reuse(r.Name, r.Expect, false)
}

// WithPlainBarrier is WithLock for a plain-barrier recipe.
func (s Scenario) WithPlainBarrier(r barrier.PlainRecipe) Scenario {
	s.Workload.PlainBarrier = &r
	return s.reuse(r.Name, r.Expect, false)
}

// WithRegister is WithLock for a register family's client-side KV.
func (s Scenario) WithRegister(r register.Recipe) Scenario {
	s.Workload.Register = &r
	return s.reuse(r.Name, r.Expect, false)
}

// WithSTM is WithLock for a transaction recipe of the stm family.
func (s Scenario) WithSTM(r stm.Recipe) Scenario {
	s.Workload.STM = &r
	return s.reuse(r.Name, r.Expect, false)
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
	// "lock/setnx/crash-holder" → "lock/mine/crash-holder", a name that
	// is not family/recipe/fault → "lock/mine/<name>".
	if parts := strings.Split(s.Name, "/"); len(parts) >= 3 {
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
