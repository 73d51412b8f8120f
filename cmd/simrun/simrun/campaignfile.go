package simrun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/seed"
)

// campaignFile is a campaign as written in YAML: a matrix of scenarios ×
// members × overrides × seeds. Every field but scenarios and seeds may be
// left out. For example:
//
//	scenarios:
//	  - lock/shared-session/healthy
//	  - "lock/*/leader-kill"
//	  - match: "lock/*/standard-mix"  # an entry may have seeds of its own
//	    seeds: {base: 1, count: 50}
//	seeds: {base: 100, count: 5}      # or a list: [1, 2, 42]
//	members: [3, 5]                   # default: each scenario's own
//	overrides:                        # default: none; each entry is one variant
//	  - name: slow-ttl                # default: override-<i>
//	    duration: 6s
//	    clients: 4
//	    ttl: 2s                       # the schedule and bounds scale with it; or observed
//	    latency: 2ms                  # every link's one-way delay, ±half (default the scenario's own)
//	    auth: jwt:2s                  # etcd's auth on (simple or jwt[:TTL]), each client a user of its own
//	    faults:                       # replaces the scenario's schedule
//	      - "at 1s for 2s: kill(leader)"
//	      - "at 4s: compact"
//
// A fault is a step in the text form faults.ParseStep reads and
// faults.Step.String writes, "at <time>[ for <duration>]: <fault>"; an
// instant fault (compact) has no duration. An empty faults list means no faults. The file's seeds serve
// every scenario entry without seeds of its own; a scenario two entries
// match takes the first entry's.
type campaignFile struct {
	Scenarios []lined[scenarioEntry] `yaml:"scenarios"`
	Seeds     seedSpec               `yaml:"seeds"`
	Members   []int                  `yaml:"members"`
	Overrides []override             `yaml:"overrides"`
	// memberLines are the lines of Members' counts, in order.
	memberLines []int
}

// campaignFields are the fields a campaign file may have.
var campaignFields = []string{"scenarios", "seeds", "members", "overrides"}

func (c *campaignFile) UnmarshalYAML(n *yaml.Node) error {
	example := ", such as\n  scenarios: [lock/mutex/standard-mix]\n  seeds: {base: 1, count: 10}"
	return decodeFields(n, "a campaign", example, campaignFields, func(name string, v *yaml.Node) (string, error) {
		switch name {
		case "scenarios":
			if v.Kind != yaml.SequenceNode {
				return "", fmt.Errorf("line %d: scenarios: want a list of names or patterns, such as [lock/mutex/standard-mix, \"election/*\"]", v.Line)
			}
			return "", v.Decode(&c.Scenarios)
		case "seeds":
			return "want a list such as [1, 2, 3] or {base: 1, count: 10}", v.Decode(&c.Seeds)
		case "members":
			return "", decodeMembers(v, &c.Members, &c.memberLines)
		case "overrides":
			if v.Kind != yaml.SequenceNode {
				return "", fmt.Errorf("line %d: overrides: want a list of variants, each a mapping of %s", v.Line, strings.Join(overrideFields, ", "))
			}
			return "", v.Decode(&c.Overrides)
		}
		return "", nil
	})
}

// decodeFields decodes the mapping n, which is what (a campaign, an
// override), field by field: a key not in fields is an error naming it,
// its line and the valid fields, and field decodes each value, returning
// what the value should be for an error that names a Go type (see
// fieldErr).
func decodeFields(n *yaml.Node, what, example string, fields []string, field func(name string, v *yaml.Node) (want string, err error)) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s is a mapping of %s%s", n.Line, what, strings.Join(fields, ", "), example)
	}
	if err := checkFields(n, what, fields); err != nil {
		return err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if want, err := field(k.Value, v); err != nil {
			return fieldErr(v, k.Value, err, want)
		}
	}
	return nil
}

// decodeMembers decodes members: a list of member counts, and the line
// of each.
func decodeMembers(n *yaml.Node, members *[]int, lines *[]int) error {
	want := "want a list of member counts, such as [3, 5]"
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("line %d: members: %s", n.Line, want)
	}
	for _, e := range n.Content {
		var m int
		if err := e.Decode(&m); err != nil {
			return fmt.Errorf("line %d: members: %q is not a whole number; %s", e.Line, e.Value, want)
		}
		if m < 1 {
			return fmt.Errorf("line %d: members: %d: want at least 1", e.Line, m)
		}
		*members = append(*members, m)
		*lines = append(*lines, e.Line)
	}
	return nil
}

// checkFields refuses a key of the mapping n other than known, naming the
// field, its line, what it is in (the campaign, an override) and the
// valid fields.
func checkFields(n *yaml.Node, in string, known []string) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !slices.Contains(known, k.Value) {
			return fmt.Errorf("line %d: unknown field %q in %s; valid fields: %s", k.Line, k.Value, in, strings.Join(known, ", "))
		}
	}
	return nil
}

// fieldErr is the error of decoding the value n of field: one that
// already names its line is kept as it is; a YAML type error, which names
// a Go type, says what the field wants instead (want, or a general
// sentence); any other error gets the line and the field.
func fieldErr(n *yaml.Node, field string, err error, want string) error {
	var te *yaml.TypeError
	switch {
	case strings.HasPrefix(err.Error(), "line "):
		return err
	case errors.As(err, &te):
		if want == "" {
			want = "the value is not of the kind this field takes"
		}
		if n.Kind == yaml.ScalarNode {
			return fmt.Errorf("line %d: %s: %q: %s", n.Line, field, n.Value, want)
		}
		return fmt.Errorf("line %d: %s: %s", n.Line, field, want)
	case strings.HasPrefix(err.Error(), field+" "):
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	return fmt.Errorf("line %d: %s: %w", n.Line, field, err)
}

// overrideFields are the fields an override may have.
var overrideFields = []string{"name", "duration", "clients", "ttl", "latency", "auth", "faults"}

// override is one variant of a campaign's scenarios.
type override struct {
	Name     string              `yaml:"name"`
	Duration scenarios.Duration  `yaml:"duration"`
	Clients  int                 `yaml:"clients"`
	TTL      ttlSpec             `yaml:"ttl"`
	Latency  scenarios.Duration  `yaml:"latency"`
	Auth     *authSpec           `yaml:"auth"`
	Faults   *[]lined[faultStep] `yaml:"faults"`
	line     int                 // the line the override begins on
	lines    map[string]int      // each field's line, by name
}

// lineOf is the line of o's field, or o's own line for one not written.
func (o override) lineOf(field string) int {
	if l, ok := o.lines[field]; ok {
		return l
	}
	return o.line
}

func (o *override) UnmarshalYAML(n *yaml.Node) error {
	o.line = n.Line
	o.lines = map[string]int{}
	return decodeFields(n, "an override", "", overrideFields, func(name string, v *yaml.Node) (string, error) {
		o.lines[name] = v.Line
		switch name {
		case "name":
			return "want a name of letters, digits, '-', '_' or '.'", v.Decode(&o.Name)
		case "duration":
			return "want Go's duration text such as 1.5s or 250ms", v.Decode(&o.Duration)
		case "clients":
			return "want a whole number of clients", v.Decode(&o.Clients)
		case "ttl":
			var text string
			if err := v.Decode(&text); err != nil {
				return `want a whole number of seconds such as 6s, or "observed"`, err
			}
			t, err := parseTTL(text)
			if err != nil {
				return "", fmt.Errorf("line %d: ttl: %w", v.Line, err)
			}
			o.TTL = t
			return "", nil
		case "latency":
			return "want Go's duration text such as 2ms", v.Decode(&o.Latency)
		case "auth":
			o.Auth = new(authSpec)
			return "want " + authSpecForm, v.Decode(o.Auth)
		case "faults":
			if v.Kind != yaml.SequenceNode {
				return "", fmt.Errorf("line %d: faults: want a list of steps such as [\"at 1s for 2s: kill(leader)\"]", v.Line)
			}
			o.Faults = new([]lined[faultStep])
			return "", v.Decode(o.Faults)
		}
		return "", nil
	})
}

// lined is a value with the line it was written on.
type lined[T any] struct {
	v    T
	line int
}

func (l *lined[T]) UnmarshalYAML(n *yaml.Node) error {
	l.line = n.Line
	if err := n.Decode(&l.v); err != nil {
		return err
	}
	return nil
}

// scenarioEntry is one entry of a campaign's scenarios: a name or pattern,
// written alone or as {match: PATTERN, seeds: SEEDS}.
type scenarioEntry struct {
	match string
	seeds seedSpec // empty: the file's seeds
}

func (e *scenarioEntry) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Decode(&e.match)
	case yaml.MappingNode:
		var m struct {
			Match string   `yaml:"match"`
			Seeds seedSpec `yaml:"seeds"`
		}
		if err := decodeKnown(n, &m, "match", "seeds"); err != nil {
			return err
		}
		if m.Match == "" {
			return fmt.Errorf("line %d: scenario entry: give the scenario name or pattern as match", n.Line)
		}
		e.match, e.seeds = m.Match, m.Seeds
		return nil
	}
	return fmt.Errorf("line %d: scenario entry: want a name or pattern, or {match: PATTERN, seeds: SEEDS}", n.Line)
}

// seedSpec is a list of seeds, or count seeds from base.
type seedSpec struct {
	list []seed.Seed
	line int
}

func (s *seedSpec) UnmarshalYAML(n *yaml.Node) error {
	s.line = n.Line
	switch n.Kind {
	case yaml.SequenceNode:
		return n.Decode(&s.list)
	case yaml.MappingNode:
		var r struct {
			Base  seed.Seed `yaml:"base"`
			Count int       `yaml:"count"`
		}
		if err := decodeKnown(n, &r, "base", "count"); err != nil {
			return err
		}
		if r.Count < 1 {
			return fmt.Errorf("line %d: seeds.count %d: want at least 1", n.Line, r.Count)
		}
		s.list = seeds(r.Base, r.Count)
		return nil
	}
	return fmt.Errorf("line %d: seeds: want a list such as [1, 2, 3] or {base: 1, count: 10}", n.Line)
}

// decodeKnown decodes the mapping n into v, refusing keys other than
// known, with their line (a node's own Decode does not refuse them).
func decodeKnown(n *yaml.Node, v any, known ...string) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !slices.Contains(known, k.Value) {
			return fmt.Errorf("line %d: unknown field %q; valid fields: %s", k.Line, k.Value, strings.Join(known, ", "))
		}
	}
	return n.Decode(v)
}

// faultStep is one step of an override's timeline.
type faultStep faults.Step

func (f *faultStep) UnmarshalYAML(n *yaml.Node) error {
	var text string
	if err := n.Decode(&text); err != nil {
		return err
	}
	st, err := faults.ParseStep(text)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*f = faultStep(st)
	return nil
}

// readCampaign reads a campaign file strictly: unknown fields and
// malformed values are errors naming the file and line.
func readCampaign(path string) (*campaignFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var c campaignFile
	if err := yaml.NewDecoder(f).Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s holds no campaign (it is empty, or all comments): a campaign names its scenarios and seeds, such as\n  scenarios: [lock/mutex/standard-mix]\n  seeds: {base: 1, count: 10}", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var errs []error
	if len(c.Scenarios) == 0 {
		errs = append(errs, errors.New("scenarios: name at least one scenario or pattern"))
	}
	for _, e := range c.Scenarios {
		if len(e.v.seeds.list) == 0 && len(c.Seeds.list) == 0 {
			errs = append(errs, fmt.Errorf("line %d: %s has no seeds: give the file seeds such as [1, 2, 3] or {base: 1, count: 10}, or the entry its own", e.line, e.v.match))
		}
	}
	named := map[string]int{} // an override's name → its index
	for i, o := range c.Overrides {
		if o.Name != "" && !safeName.MatchString(o.Name) {
			errs = append(errs, fmt.Errorf("line %d: overrides[%d].name %q: want letters, digits, '-', '_' or '.'", o.lineOf("name"), i, o.Name))
		}
		if j, ok := named[o.Name]; ok && o.Name != "" {
			errs = append(errs, fmt.Errorf("line %d: overrides[%d].name %q is overrides[%d]'s too (line %d): give each override a name of its own", o.lineOf("name"), i, o.Name, j, c.Overrides[j].lineOf("name")))
		} else {
			named[o.Name] = i
		}
		for _, v := range []struct {
			field    string
			negative bool
			value    any
		}{{"duration", o.Duration < 0, o.Duration}, {"clients", o.Clients < 0, o.Clients}, {"latency", o.Latency < 0, o.Latency}} {
			if v.negative {
				errs = append(errs, fmt.Errorf("line %d: overrides[%d].%s %v: must not be negative", o.lineOf(v.field), i, v.field, v.value))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

var safeName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// authSpec is an override's auth, written as -auth is (parseAuth).
type authSpec struct{ a *scenarios.Auth }

func (s *authSpec) UnmarshalYAML(n *yaml.Node) error {
	var text string
	if err := n.Decode(&text); err != nil {
		return err
	}
	if text == "" {
		return fmt.Errorf("line %d: auth: empty; want %s", n.Line, authSpecForm)
	}
	a, err := parseAuth(text)
	if err != nil {
		return fmt.Errorf("line %d: auth: %w", n.Line, err)
	}
	s.a = a
	return nil
}

// campaignLines are the lines of a campaign file that made one variant of
// a scenario: the scenario entry that picked it, its members count and
// its override.
type campaignLines struct {
	entry      int
	members    int // 0: the scenario's own
	override   override
	overridden bool // the campaign has overrides, and override is one
}

// stepIndex finds "step N " in a finding: a fault timeline's step.
var stepIndex = regexp.MustCompile(`\bstep (\d+) `)

// lineOf is the line a finding of a variant's Validate points at: the
// field of its override that it names — a fault step, the duration, the
// clients, the ttl, the auth — else its members count, else the override,
// else the scenario entry.
func (l campaignLines) lineOf(finding string) int {
	o := l.override
	if l.overridden {
		if m := stepIndex.FindStringSubmatch(finding); m != nil && o.Faults != nil {
			if i, err := strconv.Atoi(m[1]); err == nil && i < len(*o.Faults) {
				return (*o.Faults)[i].line
			}
		}
		for _, f := range []struct{ says, field string }{
			{"faults.timeline", "duration"}, {"workload.duration", "duration"}, {"workload.clients", "clients"},
			{"workload.ttl", "ttl"}, {"cluster.latency", "latency"}, {"cluster.auth", "auth"}, {"auth", "auth"}, {"step ", "faults"}, {"trigger ", "faults"},
		} {
			if _, set := o.lines[f.field]; set && strings.Contains(finding, f.says) {
				return o.lineOf(f.field)
			}
		}
	}
	if l.members > 0 && strings.Contains(finding, "member") {
		return l.members
	}
	if l.overridden {
		return o.line
	}
	return l.entry
}

// errors are the findings of err, the Validate error of the scenario
// called name, each on its line and with the variant's label.
func (l campaignLines) errors(label, name string, err error) []error {
	var out []error
	for _, f := range findings(name, err) {
		out = append(out, fmt.Errorf("line %d: %s: %s", l.lineOf(f), label, f))
	}
	return out
}
