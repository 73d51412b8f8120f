package faults

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/internal/suggest"
)

// Parse reads a fault in the form Fault.String writes, so that a schedule
// written down as text or JSON builds the same faults again:
//
//	compact
//	crash(<target>)
//	cut(<target> → <target>)             also written ->
//	defrag(<target>)
//	delete(<target>)                     key:<k>, prefix:<p>, or clients' session keys
//	delay(<target>, <delay>±<jitter>)    also written +-; no jitter means 0s
//	expire-token(<target>)               clients or user <name>; the cluster has auth on
//	flap(<fault>, down <d>, up <d>, ×<n>) also written x<n>; the fault lasts until healed
//	freeze(<target>)
//	isolate(<target>)
//	kill(<target>)
//	leader-kill-storm(every <interval>)
//	leader-storm(every <interval>)
//	lose-responses(<target>)
//	partition(<target>)
//	pause(<target>)
//	put(<target>, <value>)               key:<k> or clients' session keys; value without commas
//	replace(<target>)
//	reset(<target>)
//	revoke-lease(<target>)
//	ring
//	stop(<target>)
//
// A target is written as ParseTarget reads it, a duration as
// time.ParseDuration reads it ("100ms", "1.5s"). Spaces around the
// parentheses, commas and arrows do not matter. Parse checks the form
// only: whether the fault suits a cluster is for Validate and Available
// to say, as for a fault built by its constructor. A Custom fault has no
// text form.
func Parse(text string) (Fault, error) {
	if f, ok := parseCustom(text); ok {
		return f, nil
	}
	f, err := parseFault(text)
	if err != nil {
		return Fault{}, fmt.Errorf("faults: parse %q: %w", text, err)
	}
	return f, nil
}

// ParseTarget reads a target in the form Target.String writes: one of
//
//	leader  follower  minority  majority  all-members  all-clients
//	m<i>                     the member called m<i>, e.g. m2
//	client <name>            e.g. client c1
//	lock-holder <lock>       e.g. lock-holder /locks/L
//	election-leader <election>
//	pinned <client>          the member client's streams are on, e.g. pinned c1
//	key:<key>                one etcd key, e.g. key:/config/a (delete, put)
//	prefix:<prefix>          every key under a prefix (delete)
//	user <name>              an etcd user, root included (expire-token)
//
// A name may hold any character but spaces, commas and arrows (→, ->):
// "/locks/a-1.b" is a lock name, "my lock" is not.
func ParseTarget(text string) (Target, error) {
	t, err := parseTarget(text)
	if err != nil {
		return Target{}, fmt.Errorf("faults: parse target %q: %w", text, err)
	}
	return t, nil
}

// action is how one action is written and how to build it from what was
// written.
type action struct {
	form    string // how it is written, shown when it is written wrong
	targets int    // how many targets: 0, 1, or 2 (from → to)
	param   param
	build   func(ts []Target, p args) Fault
}

// args is what was written after an action's targets.
type args struct {
	d, jitter time.Duration // every <d>; <d>±<jitter>
	value     string        // a value to write
}

// param is what an action takes after its targets.
type param uint8

const (
	noParam    param = iota
	everyParam       // "every <interval>"
	delayParam       // "<delay>±<jitter>"
	valueParam       // "<value>": no spaces at its ends, no commas
	faultParam       // a fault and its flapping: read by parseFlap
)

var actions = map[string]action{
	"compact":           noArgs("compact", Compact),
	"crash":             oneTarget("crash", Crash),
	"cut":               {form: "cut(<target> → <target>)", targets: 2, build: func(ts []Target, _ args) Fault { return Cut(ts[0], ts[1]) }},
	"defrag":            oneTarget("defrag", Defrag),
	"delete":            oneTarget("delete", Delete),
	"delay":             {form: "delay(<target>, <delay>±<jitter>)", targets: 1, param: delayParam, build: func(ts []Target, p args) Fault { return Delay(ts[0], p.d, p.jitter) }},
	"expire-token":      oneTarget("expire-token", ExpireToken),
	"flap":              {form: "flap(<fault>, down <duration>, up <duration>, ×<count>)", param: faultParam},
	"freeze":            oneTarget("freeze", Freeze),
	"isolate":           oneTarget("isolate", Isolate),
	"kill":              oneTarget("kill", Kill),
	"leader-kill-storm": every("leader-kill-storm", LeaderKillStorm),
	"leader-storm":      every("leader-storm", LeaderStorm),
	"lose-responses":    oneTarget("lose-responses", LoseResponses),
	"partition":         oneTarget("partition", Partition),
	"pause":             oneTarget("pause", Pause),
	"replace":           oneTarget("replace", Replace),
	"reset":             oneTarget("reset", Reset),
	"revoke-lease":      oneTarget("revoke-lease", RevokeLease),
	"put":               {form: "put(<target>, <value>)", targets: 1, param: valueParam, build: func(ts []Target, p args) Fault { return Put(ts[0], p.value) }},
	"ring":              noArgs("ring", Ring),
	"stop":              oneTarget("stop", Stop),
}

var actionNames = slices.Sorted(maps.Keys(actions))

func noArgs(name string, build func() Fault) action {
	return action{form: name, build: func([]Target, args) Fault { return build() }}
}

func oneTarget(name string, build func(Target) Fault) action {
	return action{form: name + "(<target>)", targets: 1, build: func(ts []Target, _ args) Fault { return build(ts[0]) }}
}

func every(name string, build func(time.Duration) Fault) action {
	return action{form: name + "(every <interval>)", param: everyParam, build: func(_ []Target, p args) Fault { return build(p.d) }}
}

func parseFault(text string) (Fault, error) {
	s := strings.TrimSpace(text)
	open := strings.IndexByte(s, '(')
	name := s
	if open >= 0 {
		name = strings.TrimSpace(s[:open])
	}
	a, ok := actions[name]
	if !ok {
		// "kill leader": a known action missing its parenthesis.
		if fs := strings.Fields(name); len(fs) > 1 {
			if a, ok := actions[fs[0]]; ok {
				return Fault{}, fmt.Errorf("missing \"(\" after %s; write %s", fs[0], a.form)
			}
		}
		if name == "" {
			return Fault{}, fmt.Errorf("no action; actions: %s", strings.Join(actionNames, ", "))
		}
		return Fault{}, fmt.Errorf("no action %q; actions: %s (a Custom fault is written \"custom <name>(<target>)\")",
			name, strings.Join(suggest.Nearest(name, actionNames), ", "))
	}
	if open < 0 {
		if a.targets == 0 && a.param == noParam {
			return a.build(nil, args{}), nil
		}
		return Fault{}, fmt.Errorf("%s needs arguments; write %s", name, a.form)
	}
	if !strings.HasSuffix(s, ")") {
		return Fault{}, fmt.Errorf("missing \")\" at the end; write %s", a.form)
	}
	return a.parse(name, s[open+1:len(s)-1])
}

// parse reads the arguments of the action called name, the text between
// its parentheses.
func (a action) parse(name, inside string) (Fault, error) {
	if a.param == faultParam {
		return parseFlap(inside)
	}
	want := 0
	if a.targets > 0 {
		want++
	}
	if a.param != noParam {
		want++
	}
	if want == 0 {
		return Fault{}, fmt.Errorf("%s takes no arguments; write %s", name, a.form)
	}
	written := trimAll(strings.Split(inside, ","))
	if len(written) != want {
		hint := ""
		if len(written) > want {
			hint = " (names may not contain commas)"
		}
		return Fault{}, fmt.Errorf("%s takes %s, got %d: %s; write %s%s",
			name, count(want, "argument"), len(written), quoteAll(written), a.form, hint)
	}
	var ts []Target
	if a.targets > 0 {
		parts := trimAll(strings.Split(strings.ReplaceAll(written[0], "->", "→"), "→"))
		if len(parts) != a.targets {
			return Fault{}, fmt.Errorf("%s takes %s, got %d: %s; write %s",
				name, count(a.targets, "target"), len(parts), quoteAll(parts), a.form)
		}
		for _, p := range parts {
			t, err := parseTarget(p)
			if err != nil {
				return Fault{}, err
			}
			ts = append(ts, t)
		}
	}
	var d, jitter time.Duration
	var value string
	p := written[len(written)-1]
	switch a.param {
	case everyParam:
		fs := strings.Fields(p)
		if len(fs) != 2 || fs[0] != "every" {
			return Fault{}, fmt.Errorf("want \"every <interval>\", got %q; write %s", p, a.form)
		}
		var err error
		if d, err = parseDuration("interval", fs[1]); err != nil {
			return Fault{}, err
		}
	case delayParam:
		ds, js, ok := strings.Cut(p, "±")
		if !ok {
			ds, js, ok = strings.Cut(p, "+-")
		}
		var err error
		if d, err = parseDuration("delay", strings.TrimSpace(ds)); err != nil {
			return Fault{}, err
		}
		if ok {
			if jitter, err = parseDuration("jitter", strings.TrimSpace(js)); err != nil {
				return Fault{}, err
			}
		}
	case valueParam:
		if p == "" {
			return Fault{}, fmt.Errorf("%s needs a value; write %s", name, a.form)
		}
		value = p
	}
	return a.build(ts, args{d: d, jitter: jitter, value: value}), nil
}

func parseDuration(what, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("bad %s %q: want a duration such as 100ms or 1.5s", what, s)
	}
	return d, nil
}

// roles are the targets written as one word.
var roles = map[string]Target{
	"leader":      Leader,
	"follower":    Follower,
	"minority":    Minority,
	"majority":    Majority,
	"all-members": AllMembers,
	"all-clients": AllClients,
}

// namedRoles are the targets written as a word and a name, and what the
// name names.
var namedRoles = map[string]struct {
	of    string
	build func(string) Target
}{
	"client":          {"client", Client},
	"lock-holder":     {"lock", LockHolder},
	"election-leader": {"election", ElectionLeader},
	"pinned":          {"client", Pinned},
	"user":            {"user", User},
}

// targetWords are the first words of the targets, in the order they are
// listed; targetForms says how each is written.
var targetWords = []string{"leader", "follower", "minority", "majority", "m<i>", "all-members",
	"client", "all-clients", "lock-holder", "election-leader", "pinned", "key:", "prefix:", "user"}

var targetForms = map[string]string{
	"m<i>":            "m<i>",
	"client":          "client <name>",
	"lock-holder":     "lock-holder <lock>",
	"election-leader": "election-leader <election>",
	"pinned":          "pinned <client>",
	"key:":            "key:<key>",
	"prefix:":         "prefix:<prefix>",
	"user":            "user <name>",
}

func parseTarget(text string) (Target, error) {
	fs := strings.Fields(text)
	if len(fs) == 0 {
		return Target{}, fmt.Errorf("no target; targets: %s", forms(""))
	}
	word := fs[0]
	rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), word))
	for _, kt := range []struct {
		prefix string
		build  func(string) Target
	}{{"key:", Key}, {"prefix:", Prefix}} {
		k, ok := strings.CutPrefix(word, kt.prefix)
		if !ok {
			continue
		}
		switch {
		case k == "":
			return Target{}, fmt.Errorf("%s needs a key right after the colon; write %s", kt.prefix, targetForms[kt.prefix])
		case rest != "":
			return Target{}, fmt.Errorf("%s%s %s: a key may not contain spaces", kt.prefix, k, rest)
		case strings.Contains(k, "→") || strings.Contains(k, "->"):
			return Target{}, fmt.Errorf("key %q has an arrow; keys may not contain → or ->", k)
		}
		return kt.build(k), nil
	}
	if t, ok := roles[word]; ok {
		if rest != "" {
			return Target{}, fmt.Errorf("%s takes no name, got %q", word, rest)
		}
		return t, nil
	}
	if r, ok := namedRoles[word]; ok {
		switch {
		case rest == "":
			return Target{}, fmt.Errorf("%s needs a %s name; write %s", word, r.of, targetForms[word])
		case len(fs) > 2:
			return Target{}, fmt.Errorf("%s name %q has a space; names may not contain spaces or commas", r.of, rest)
		case strings.Contains(rest, ","):
			return Target{}, fmt.Errorf("%s name %q has a comma; names may not contain spaces or commas", r.of, rest)
		case strings.Contains(rest, "→") || strings.Contains(rest, "->"):
			return Target{}, fmt.Errorf("%s name %q has an arrow; names may not contain → or ->", r.of, rest)
		}
		return r.build(rest), nil
	}
	if digits, ok := strings.CutPrefix(word, "m"); ok && digits != "" && strings.Trim(digits, "0123456789") == "" {
		i, err := strconv.Atoi(digits)
		switch {
		case err != nil:
			return Target{}, fmt.Errorf("member %q: %w", word, errors.Unwrap(err))
		case strconv.Itoa(i) != digits:
			return Target{}, fmt.Errorf("member %q is written m%d", word, i)
		case rest != "":
			return Target{}, fmt.Errorf("%s takes no name, got %q", word, rest)
		}
		return Member(i), nil
	}
	return Target{}, fmt.Errorf("no target %q; targets: %s", word, forms(word))
}

// forms lists every way to write a target, the closest to near first if
// near is given.
func forms(near string) string {
	words := targetWords
	if near != "" {
		words = suggest.Nearest(near, words)
	}
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = cmp.Or(targetForms[w], w)
	}
	return strings.Join(out, ", ")
}

func trimAll(ss []string) []string {
	for i, s := range ss {
		ss[i] = strings.TrimSpace(s)
	}
	return ss
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// count is "1 target", "2 targets".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Actions lists the actions a fault's text form may name, sorted.
func Actions() []string { return slices.Clone(actionNames) }
