// Package recipe is the one registry type of every recipe family: a lock,
// an election, a registrar or a resolver is registered, looked up and
// described the same way. The families' packages name it for their own
// constructor type (lock.Recipe, election.Recipe, discovery.RegistrarRecipe,
// discovery.ResolverRecipe), so a user's own recipe is a literal of that
// name.
package recipe

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/suggest"
)

// The families recipes come in.
const (
	Lock      = "lock"
	Election  = "election"
	Discovery = "discovery"
	// Register is a client-side KV a register client reads and writes
	// through.
	Register = "register"
	RWMutex  = "rwmutex"
	Queue    = "queue"
	Barrier  = "barrier"
	// PlainBarrier is etcd's plain barrier (Hold, Release, Wait), beside
	// the double barrier of Barrier.
	PlainBarrier = "plain-barrier"
	// STM is a process's transaction code.
	STM = "stm"
)

// Families lists every family, in the order the gallery shows them. The
// scenarios package's family table lists the same, in the same order (a
// test there says so).
func Families() []string {
	return []string{Lock, Election, Discovery, Register, RWMutex, Queue, Barrier, PlainBarrier, STM}
}

// Recipe describes one implementation of a family and builds it. New is
// the family's constructor type.
type Recipe[New any] struct {
	// Name identifies the recipe within its family, in scenarios, simrun
	// and reports: lower case, digits and '-'.
	Name string `json:"name"`
	// Family is one of Families(). Empty means the family
	// of the registry or scenario it is used in.
	Family string `json:"family,omitempty"`
	// Summary says in one line what the recipe does and, for a broken one,
	// what breaks.
	Summary string `json:"summary"`
	// Broken marks a deliberately broken recipe: a scenario expects Expect
	// of it rather than a pass.
	Broken bool `json:"broken,omitempty"`
	// Expect is, for a broken recipe, the violation it must produce: the
	// checker that reports it and the kind of violation. It must be zero
	// for a correct recipe, whose expectation is a pass.
	Expect checker.Expectation `json:"expect,omitzero"`
	// Upstream is the report the broken recipe reproduces, as a URL (an
	// etcd issue), "" if none.
	Upstream string `json:"upstream,omitempty"`
	// Command, for a recipe whose every client is a program of its own
	// (package program), is that program's command and
	// arguments. A scenario running the recipe records it in
	// workload.command, so that a replay starts the same program; nil for
	// a recipe in Go.
	Command []string `json:"command,omitempty"`
	// New builds the recipe for one client.
	New New `json:"-"`
}

// Validate reports every reason r cannot be registered or run: no name, no
// constructor, an unknown family, a broken recipe without the violation it
// must produce, a correct one with one, an upstream that is no URL.
func (r Recipe[New]) Validate() error {
	var errs []error
	name := r.Name
	if name == "" {
		name = "(unnamed)"
		errs = append(errs, errors.New("empty Name"))
	} else if !validName(r.Name) {
		errs = append(errs, fmt.Errorf("Name %q: use lower-case letters, digits and '-', starting with a letter", r.Name))
	}
	if r.Family != "" && !slices.Contains(Families(), r.Family) {
		errs = append(errs, fmt.Errorf("Family %q: want one of %v", r.Family, Families()))
	}
	if v := reflect.ValueOf(any(r.New)); !v.IsValid() || v.Kind() == reflect.Func && v.IsNil() {
		errs = append(errs, errors.New("New is nil"))
	}
	switch {
	case r.Broken && r.Expect.Pass():
		errs = append(errs, errors.New("Broken with no Expect: say which checker reports which violation (e.g. {Checker: \"mutual-exclusion\", Violation: \"overlap\"})"))
	case r.Broken:
		if err := r.Expect.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("Expect: %w", err))
		}
	case !r.Expect.Pass():
		errs = append(errs, fmt.Errorf("Expect is %v but Broken is false: a correct recipe is expected to pass", r.Expect))
	}
	if r.Upstream != "" {
		if u, err := url.Parse(r.Upstream); err != nil || u.Scheme != "https" || u.Host == "" {
			errs = append(errs, fmt.Errorf("Upstream %q: want an https URL of the report", r.Upstream))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("recipe %s: %w", name, err)
	}
	return nil
}

// ExpectString says what a scenario expects of the recipe: "pass" or the
// violation.
func (r Recipe[New]) ExpectString() string {
	if !r.Broken {
		return "pass"
	}
	return r.Expect.String()
}

func validName(s string) bool {
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return s != ""
}

// Registry is the recipes of one family: its gallery, in the order it is
// listed, correct ones first; and apart from the gallery the upstream
// recipes, which run etcd's own code in the calling pattern of a report
// against etcd, each beside its fixed twin. Lookup finds both, so a result
// file replays by name; All lists the gallery only, so every scenario and
// test that walks the gallery's correct recipes leaves the upstream ones
// out.
type Registry[New any] struct {
	family   string
	gallery  []Recipe[New]
	upstream []Recipe[New]
}

// NewRegistry checks every recipe and returns them as family's gallery.
// A bad entry is a programming error, so it panics, naming the entry.
func NewRegistry[New any](family string, recipes ...Recipe[New]) *Registry[New] {
	reg := &Registry[New]{family: family}
	reg.gallery = reg.add(recipes)
	return reg
}

// WithUpstream returns a registry of reg's gallery and of recipes as its
// upstream recipes. It panics as NewRegistry does, and on a name the
// gallery already has.
func (reg *Registry[New]) WithUpstream(recipes ...Recipe[New]) *Registry[New] {
	out := &Registry[New]{family: reg.family, gallery: reg.gallery, upstream: slices.Clone(reg.upstream)}
	out.upstream = append(out.upstream, out.add(recipes)...)
	return out
}

// add checks recipes against one another and reg's, and returns them
// with their family filled in.
func (reg *Registry[New]) add(recipes []Recipe[New]) []Recipe[New] {
	var out []Recipe[New]
	for _, r := range recipes {
		if r.Family == "" {
			r.Family = reg.family
		}
		if err := r.Validate(); err != nil {
			panic(fmt.Sprintf("%s registry: %v", reg.family, err))
		}
		if _, err := reg.Lookup(r.Name); err == nil || slices.ContainsFunc(out, func(o Recipe[New]) bool { return o.Name == r.Name }) {
			panic(fmt.Sprintf("%s registry: recipe %s registered twice", reg.family, r.Name))
		}
		out = append(out, r)
	}
	return out
}

// All returns the gallery, correct recipes first; the slice is the
// caller's.
func (reg *Registry[New]) All() []Recipe[New] { return slices.Clone(reg.gallery) }

// Upstream returns the upstream recipes, in the order they were given;
// the slice is the caller's.
func (reg *Registry[New]) Upstream() []Recipe[New] { return slices.Clone(reg.upstream) }

// Names returns every recipe's name: the gallery's, then the upstream
// recipes'.
func (reg *Registry[New]) Names() []string {
	var names []string
	for _, r := range slices.Concat(reg.gallery, reg.upstream) {
		names = append(names, r.Name)
	}
	return names
}

// Unknown is a family's error for a name its registry does not hold: it
// reads as prefix followed by the registry's error (which names the name
// and those there are) and wraps both sentinel, the family's own, and the
// registry's error, so errors.Is finds ErrUnknown as well.
func Unknown(prefix string, sentinel, err error) error {
	return &unknownError{prefix: prefix, sentinel: sentinel, err: err}
}

type unknownError struct {
	prefix        string
	sentinel, err error
}

func (e *unknownError) Error() string   { return e.prefix + e.err.Error() }
func (e *unknownError) Unwrap() []error { return []error{e.sentinel, e.err} }

// ErrUnknown is wrapped by Lookup's error for a name not registered.
var ErrUnknown = errors.New("no recipe named")

// Lookup returns the recipe called name, of the gallery or the upstream
// recipes, or an error wrapping ErrUnknown that lists the names there are,
// the closest first.
func (reg *Registry[New]) Lookup(name string) (Recipe[New], error) {
	for _, r := range slices.Concat(reg.gallery, reg.upstream) {
		if r.Name == name {
			return r, nil
		}
	}
	return Recipe[New]{}, fmt.Errorf("%w %q among %s recipes; have %s", ErrUnknown, name, reg.family,
		strings.Join(suggest.Nearest(name, reg.Names()), ", "))
}
