package scenarios

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/recipe"
)

// family is one workload family, everything the engine knows of it in one
// value: run, validation, defaults, reuse, shrink, the registry and
// simrun's child read it, and nothing else switches on a family's name. A
// family is a file of its own that declares its value, and a line in
// families.
type family struct {
	// name is Workload.Family's value: "lock".
	name string
	// key is the default Workload.Key: the lock, election, service…
	key string
	// observers is the default Workload.Observers.
	observers int
	// knobs are the family-only fields of Workload (see familyKnobs)
	// this family takes, by their JSON names.
	knobs []string
	// defaults, if set, fills the family's own zero fields of w, after
	// the fields every family shares.
	defaults func(w *Workload)
	// validate, if set, reports the family's own settings that cannot
	// run, through bad.
	validate func(s Scenario, bad func(format string, args ...any))
	// keys, if set, are the key prefixes the family's clients read and
	// write for workload w (KeyPrefixes); a family without it cannot run
	// with auth on.
	keys func(w Workload) []string
	// clientKeys, if set, are the key prefixes one client of w reads and
	// writes, when those are not all of keys' (elections split over
	// clients); nil means keys.
	clientKeys func(w Workload, client string) []string
	// workloadKeys, if set, are the prefixes of the keys the workload
	// writes itself beside its recipe (a guarded resource):
	// checker.Meta.WorkloadKeys. nil means the recipe writes every key
	// its clients put.
	workloadKeys func(w Workload) []string
	// checkers are the checkers that judge the family's history unless a
	// scenario names its own.
	checkers []checker.Name
	// slots are the Workload fields a program's own recipe values go in:
	// the recipe's, and for discovery the resolver's too.
	slots []slot
	// run runs the family's workload until ctx ends or its clients are
	// done.
	run func(w *world, ctx context.Context) error
	// minClients is the fewest clients a run of w shrinks to: where one
	// client can show a violation, 1. 0 means 2 (two holders, two
	// leaders).
	minClients func(w Workload) int
	// safety names the exported constructors that build the scenarios a
	// user's recipe of the family must pass: "LockSafety".
	safety []string
	// unfenced, for a family whose recipes may declare that they hand out
	// no fencing token, says what judges such a recipe when fencing is
	// left out.
	unfenced string
	// serverSide names the family's registered recipes that call etcd's
	// server-side lock or election service, whose members leave etcd's
	// in-process client behind (docs/upstream.md).
	serverSide []string
	// command, if set, fills the family's recipe slot with a recipe of
	// package program called name that runs argv, one process
	// per client: what workload.command stands for. A family without it
	// cannot run a recipe in another process.
	command func(w *Workload, name string, argv []string)
	// gallery is the family's registered scenarios: each correct recipe
	// under the family's safety scenarios, then each pitfall under the
	// schedule that exposes it.
	gallery func() []Scenario
}

// families is the family table, in the order the gallery shows them. It
// is filled in init, not in its declaration: a family's functions reach
// the table (a gallery asks for its DefaultCheckers), which Go's
// initialization order would call a cycle.
var families []*family

func init() {
	families = []*family{
		&lockFamily,
		&electionFamily,
		&discoveryFamily,
		&registerFamily,
		&rwmutexFamily,
		&queueFamily,
		&barrierFamily,
		&plainBarrierFamily,
		&stmFamily,
	}
}

// Families lists the workload families, in the order the gallery shows
// them.
func Families() []string {
	names := make([]string, len(families))
	for i, f := range families {
		names[i] = f.name
	}
	return names
}

// familyOf returns the family called name, or nil.
func familyOf(name string) *family {
	for _, f := range families {
		if f.name == name {
			return f
		}
	}
	return nil
}

// DefaultCheckers returns the checkers that judge a family's history.
func DefaultCheckers(family string) []Check {
	f := familyOf(family)
	if f == nil {
		return nil
	}
	out := make([]Check, len(f.checkers))
	for i, name := range f.checkers {
		out[i] = Check{Name: name}
	}
	return out
}

// familyKnobs are the fields of Workload that only some families take, by
// their JSON names, and whether w sets each. A family lists those it takes
// in its knobs; Validate refuses the others, naming the families that do
// take them.
var familyKnobs = []struct {
	name string
	set  func(w Workload) bool
}{
	{"threads", func(w Workload) bool { return w.Threads != 0 }},
	{"pinned", func(w Workload) bool { return w.Pinned }},
	{"owner_check", func(w Workload) bool { return w.OwnerCheck != "" }},
	{"writes", func(w Workload) bool { return w.Writes != 0 }},
	{"stagger", func(w Workload) bool { return w.Stagger != 0 }},
	{"producers", func(w Workload) bool { return w.Producers != 0 }},
	{"priorities", func(w Workload) bool { return w.Priorities != 0 }},
	{"serializable", func(w Workload) bool { return w.Serializable }},
	{"readers", func(w Workload) bool { return w.Readers != 0 }},
	{"resolver", func(w Workload) bool { return w.Resolver != "" }},
	{"elections", func(w Workload) bool { return w.Elections != 0 }},
}

// checkKnobs reports each family-only field w sets that f does not take.
func checkKnobs(f *family, w Workload, bad func(format string, args ...any)) {
	for _, k := range familyKnobs {
		if !k.set(w) || slices.Contains(f.knobs, k.name) {
			continue
		}
		var takers []string
		for _, g := range families {
			if slices.Contains(g.knobs, k.name) {
				takers = append(takers, g.name)
			}
		}
		bad("workload.%s is for the %s %s only, not %s", k.name, strings.Join(takers, " and "),
			map[bool]string{true: "family", false: "families"}[len(takers) == 1], w.Family)
	}
}

// slot is a field of Workload that holds a program's own recipe value,
// run instead of the registry's recipe of the name the scenario gives.
type slot struct {
	// field is the field's name in messages: "lock", "resolver_recipe".
	field string
	// with is the Scenario method that sets it: "WithLock".
	with string
	// resolver says the slot's recipe is named by Workload.Resolver, not
	// Workload.Recipe.
	resolver bool
	// own returns the value's name and its Validate, if w holds one.
	own func(w Workload) (name string, validate func() error, ok bool)
	// lookup reports a recipe the registry does not have.
	lookup func(name string) error
	// carry copies the value of from into to.
	carry func(to *Workload, from Workload)
	// command is the command of the value w holds, nil for a recipe in Go.
	command func(w Workload) []string
}

// named is what the slot names in w: the recipe, or the resolver.
func (sl slot) named(w Workload) string {
	if sl.resolver {
		return w.Resolver
	}
	return w.Recipe
}

// check reports a recipe w cannot run: its own value's Validate, or a
// name the registry does not have.
func (sl slot) check(w Workload) error {
	if _, validate, ok := sl.own(w); ok {
		return validate()
	}
	return sl.lookup(sl.named(w))
}

// slotOf is the slot of a recipe field of type *recipe.Recipe[N], found
// by field in a Workload, whose registry looks names up with lookup.
func slotOf[N any](name, with string, field func(w *Workload) **recipe.Recipe[N], lookup func(string) (recipe.Recipe[N], error)) slot {
	return slot{
		field: name,
		with:  with,
		own: func(w Workload) (string, func() error, bool) {
			r := *field(&w)
			if r == nil {
				return "", nil, false
			}
			return r.Name, r.Validate, true
		},
		lookup: func(name string) error { _, err := lookup(name); return err },
		carry:  func(to *Workload, from Workload) { *field(to) = *field(&from) },
		command: func(w Workload) []string {
			if r := *field(&w); r != nil {
				return r.Command
			}
			return nil
		},
	}
}

// CarryRecipes gives w the program's own recipe values of from, every
// slot of every family: what a scenario's JSON cannot carry, taken from a
// scenario of the same name a program has (simrun's child and replay do).
func (w *Workload) CarryRecipes(from Workload) {
	for _, f := range families {
		for _, sl := range f.slots {
			sl.carry(w, from)
		}
	}
}

// ServerSideRecipe names w's recipe, "family recipe", when it is a
// registered recipe that calls etcd's server-side lock or election
// service, or returns "". A program's own recipe value is not looked
// into: what it calls is its own.
func (w Workload) ServerSideRecipe() string {
	f := familyOf(w.Family)
	if f == nil || !slices.Contains(f.serverSide, w.Recipe) {
		return ""
	}
	for _, sl := range f.slots {
		if _, _, ok := sl.own(w); ok {
			return ""
		}
	}
	return f.name + " " + w.Recipe
}

// checkRecipe reports a recipe the family's registry does not have, or a
// program's own recipe value that cannot run.
func (s Scenario) checkRecipe() error {
	f := familyOf(s.Workload.Family)
	if f == nil {
		return nil // Validate names the family
	}
	var errs []error
	for _, sl := range f.slots {
		if err := sl.check(s.Workload); err != nil {
			errs = append(errs, fmt.Errorf("workload.%s: %w", map[bool]string{true: "resolver", false: "recipe"}[sl.resolver], err))
		}
	}
	return errors.Join(errs...)
}

// checkRecipeValues reports a recipe value the scenario would not run —
// one of another family — or one whose name is not the name the scenario
// gives its recipe, as when a registered scenario's Workload.Lock is set
// by hand and its name, expectation and description still speak of the
// recipe it replaced.
func (s Scenario) checkRecipeValues() error {
	w := s.Workload
	var errs []error
	for _, f := range families {
		for _, sl := range f.slots {
			name, _, ok := sl.own(w)
			switch {
			case !ok:
			case w.Family != f.name:
				errs = append(errs, fmt.Errorf("workload.%s (%q) is set, but the workload's family is %s, not %s", sl.field, name, w.Family, f.name))
			case sl.named(w) != "" && name != sl.named(w):
				errs = append(errs, fmt.Errorf("workload.%s is recipe %q but the scenario names %q: use s.%s(r), which also gives the scenario the recipe's own name, expectation and description",
					sl.field, name, sl.named(w), sl.with))
			}
		}
	}
	return errors.Join(errs...)
}
