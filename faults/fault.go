package faults

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/etcdsim/etcdsim/cluster"
)

// Fault is an action aimed at one or two targets: Kill(Leader),
// Partition(Minority), Pause(Client("c2")). It is a value: building one
// touches nothing, and the same Fault can fire many times, each time
// resolving its targets anew. Env.Inject fires it and returns its Heal;
// schedules fire and heal it on their own.
//
// The zero Fault is not valid.
type Fault struct {
	action  string
	targets []Target
	// implied targets follow from the action (a ring is of every member)
	// and are left out of the name.
	implied bool
	// custom faults run a function of the caller's; their text form is
	// their name (see custom_name.go).
	custom bool
	// named is, for a custom fault read from its text form, that form: it
	// has no function, only a name.
	named string
	param string // shown in the name after the targets, e.g. "1s±100ms"
	// instant faults are over once injected (compact, defrag, revoke,
	// replace); the others last until healed.
	instant bool
	// kind says what the targets must resolve to.
	kind nodeKind
	// check, if set, says why the fault cannot apply to a cluster of this
	// shape, beyond what the targets check.
	check func(s shape) error
	// apply injects the fault on the resolved targets (one slice per
	// target). It returns a heal that undoes whatever was done, even when
	// apply also returns an error, and a detail for the record.
	apply func(ctx context.Context, x *shot) (heal healFunc, detail string, err error)
}

// nodeKind is what a fault's targets must resolve to.
type nodeKind uint8

const (
	anyNodes nodeKind = iota
	membersOnly
	clientsOnly
	// keysOrClients: etcd keys (Key, Prefix), or clients whose session
	// lease's keys are meant (a lock's holder).
	keysOrClients
)

func (k nodeKind) String() string {
	switch k {
	case membersOnly:
		return "members"
	case clientsOnly:
		return "clients"
	case keysOrClients:
		return "keys (key:<k>, prefix:<p>) or clients whose session keys are meant (lock-holder <lock>, election-leader <election>, client <name>)"
	}
	return "members or clients"
}

// healFunc undoes an injection; its string adds to the event's detail.
type healFunc func(ctx context.Context) (string, error)

func noHeal(context.Context) (string, error) { return "", nil }

// Heal undoes an injected fault: it restarts what was killed, restores the
// links it cut, resumes what it paused. It is safe to call more than once
// and from several goroutines; only the first call acts, the others wait
// for it and return its error. ctx bounds the heal; a schedule always
// heals with a context of its own, even after its run's context ended.
type Heal func(ctx context.Context) error

// shot is one firing of a fault: where, with what randomness, on whom.
type shot struct {
	env     *Env
	rng     *rand.Rand
	targets [][]string // resolved, one slice per Fault.targets entry
}

// String names the fault as events and errors show it, in the form Parse
// reads: "kill(leader)", "delay(client c1, 100ms±20ms)",
// "cut(leader → follower)", "ring". A Custom fault shows its name and
// target the same way, but Parse cannot read it back.
func (f Fault) String() string {
	if f.action == "" {
		return "<invalid fault>"
	}
	if f.named != "" {
		return f.named
	}
	var parts []string
	var ts []string
	for _, t := range f.targets {
		if f.implied {
			break
		}
		ts = append(ts, t.String())
	}
	if len(ts) > 0 {
		parts = append(parts, strings.Join(ts, " → "))
	}
	if f.param != "" {
		parts = append(parts, f.param)
	}
	if len(parts) == 0 {
		return f.action
	}
	return f.action + "(" + strings.Join(parts, ", ") + ")"
}

// MarshalText writes the fault as String does, so that a Fault in a
// struct is a JSON string; a Custom fault is written by name, "custom "
// and its String. The zero Fault has no text form: it is an error.
func (f Fault) MarshalText() ([]byte, error) {
	switch {
	case f.action == "":
		return nil, errors.New("faults: the zero Fault has no text form")
	case f.custom:
		return []byte(customPrefix + f.String()), nil
	}
	return []byte(f.String()), nil
}

// UnmarshalText reads the form MarshalText writes; see Parse.
func (f *Fault) UnmarshalText(text []byte) error {
	v, err := Parse(string(text))
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// Instant reports whether the fault is over as soon as it is injected
// (compaction, defragmentation, lease revocation, member replacement). A
// schedule gives such a fault no duration.
func (f Fault) Instant() bool { return f.instant }

// Targets returns the targets the fault is aimed at.
func (f Fault) Targets() []Target { return append([]Target(nil), f.targets...) }

// Available reports why f cannot apply to c as it is now — a target that
// does not exist, a cluster too small for the action, a bad parameter —
// or nil. Whether a role such as Leader or LockHolder can be resolved is
// known only when the fault fires; then Env.Inject says why not.
func (f Fault) Available(c *cluster.Cluster) error { return f.validate(shapeOf(c)) }

// validate reports why the fault cannot apply to a cluster of shape s.
func (f Fault) validate(s shape) error {
	if f.apply == nil {
		return errors.New("faults: the zero Fault is not valid; build one with Kill, Partition, …")
	}
	var errs []error
	for _, t := range f.targets {
		if err := t.check(s); err != nil {
			errs = append(errs, err)
			continue
		}
		switch {
		case t.kind == userTarget && f.action != "expire-token":
			errs = append(errs, fmt.Errorf("%v names an etcd user, which only expire-token aims at", t))
		case t.onKeys() && f.kind != keysOrClients:
			errs = append(errs, fmt.Errorf("%v names etcd keys, not a node; %s needs %s", t, f.action, f.kind))
		case f.kind == membersOnly && !t.onMembers():
			errs = append(errs, fmt.Errorf("%v is a client; %s needs members", t, f.action))
		case f.kind == clientsOnly && t.onMembers(), f.kind == keysOrClients && t.onMembers():
			errs = append(errs, fmt.Errorf("%v is a member; %s needs %s", t, f.action, f.kind))
		}
	}
	if len(errs) == 0 && f.check != nil {
		if err := f.check(s); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("faults: %v: %w", f, err)
	}
	return nil
}

// Custom builds a fault from a function, for actions this package does
// not have. inject receives the names t resolved to and returns the heal;
// it is recorded and scheduled like any other fault. A custom fault lasts
// until healed, so a schedule gives it a duration. Its text form is its
// name, "custom " and its String: Parse reads it back as a fault known by
// name only (NameOnly), which the program that built it swaps for its own.
func Custom(name string, t Target, inject func(ctx context.Context, env *Env, targets []string) (Heal, error)) Fault {
	return Fault{
		action:  name,
		targets: []Target{t},
		custom:  true,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			h, err := inject(ctx, x.env, x.targets[0])
			if h == nil {
				return noHeal, "", err
			}
			return func(ctx context.Context) (string, error) { return "", h(ctx) }, "", err
		},
	}
}
