package simrun

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
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
//	    ttl: 2s
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
}

// override is one variant of a campaign's scenarios.
type override struct {
	Name     string              `yaml:"name"`
	Duration scenarios.Duration  `yaml:"duration"`
	Clients  int                 `yaml:"clients"`
	TTL      scenarios.Duration  `yaml:"ttl"`
	Faults   *[]lined[faultStep] `yaml:"faults"`
	line     int
}

func (o *override) UnmarshalYAML(n *yaml.Node) error {
	type plain override
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*o = override(p)
	o.line = n.Line
	return nil
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
			return fmt.Errorf("line %d: field %s not found (want one of %s)", k.Line, k.Value, strings.Join(known, ", "))
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
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	var c campaignFile
	if err := dec.Decode(&c); err != nil {
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
	for _, m := range c.Members {
		if m < 1 {
			errs = append(errs, fmt.Errorf("members: %d: want at least 1", m))
		}
	}
	for i, o := range c.Overrides {
		if o.Name != "" && !safeName.MatchString(o.Name) {
			errs = append(errs, fmt.Errorf("line %d: overrides[%d].name %q: want letters, digits, '-', '_' or '.'", o.line, i, o.Name))
		}
		if o.Duration < 0 || o.TTL < 0 || o.Clients < 0 {
			errs = append(errs, fmt.Errorf("line %d: overrides[%d]: duration, clients and ttl must not be negative", o.line, i))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

var safeName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
