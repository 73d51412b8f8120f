package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/seed"
)

// Schedules are data: a Timeline or a Nemesis written as JSON says
// exactly what ran and reads back into the same schedule. Every field is
// named in snake_case; a fault is its text form (see Parse); a duration is
// Go's duration text ("1.5s", "250ms"), and a whole number of nanoseconds
// is read too; a seed is a string of decimal digits (seed.Seed). A
// field the type does not have is an error that names it.
//
// Each type goes through a twin whose durations are raw JSON: written as
// duration text, and read after decoding so that a bad one names its
// field. The twins list the fields in the order they are written.

type timelineJSON struct {
	Seed     seed.Seed       `json:"seed"`
	Steps    []Step          `json:"steps"`
	Triggers []Trigger       `json:"triggers"`
	End      json.RawMessage `json:"end"`
}

// MarshalJSON writes the timeline; see the top of this file.
func (tl Timeline) MarshalJSON() ([]byte, error) {
	return json.Marshal(timelineJSON{Seed: tl.Seed, Steps: tl.Steps, Triggers: tl.Triggers, End: durationJSON(tl.End)})
}

// UnmarshalJSON reads a timeline; a field it does not have is an error.
func (tl *Timeline) UnmarshalJSON(data []byte) error {
	v := timelineJSON{Seed: tl.Seed, Steps: tl.Steps, Triggers: tl.Triggers}
	if err := decodeStrict("timeline", data, &v, durationField{"end", &v.End, &tl.End}); err != nil {
		return err
	}
	tl.Seed, tl.Steps, tl.Triggers = v.Seed, v.Steps, v.Triggers
	return nil
}

type stepJSON struct {
	At    json.RawMessage `json:"at"`
	For   json.RawMessage `json:"for"`
	Fault Fault           `json:"fault"`
}

// MarshalJSON writes the step; see the top of this file.
func (s Step) MarshalJSON() ([]byte, error) {
	return json.Marshal(stepJSON{At: durationJSON(s.At), For: durationJSON(s.For), Fault: s.Fault})
}

// UnmarshalJSON reads a step; a field it does not have is an error.
func (s *Step) UnmarshalJSON(data []byte) error {
	v := stepJSON{Fault: s.Fault}
	if err := decodeStrict("step", data, &v,
		durationField{"at", &v.At, &s.At}, durationField{"for", &v.For, &s.For}); err != nil {
		return err
	}
	s.Fault = v.Fault
	return nil
}

type triggerJSON struct {
	On    Match           `json:"on"`
	For   json.RawMessage `json:"for"`
	Fault Fault           `json:"fault"`
}

// MarshalJSON writes the trigger; see the top of this file.
func (t Trigger) MarshalJSON() ([]byte, error) {
	return json.Marshal(triggerJSON{On: t.On, For: durationJSON(t.For), Fault: t.Fault})
}

// UnmarshalJSON reads a trigger; a field it does not have is an error.
func (t *Trigger) UnmarshalJSON(data []byte) error {
	v := triggerJSON{On: t.On, Fault: t.Fault}
	if err := decodeStrict("trigger", data, &v, durationField{"for", &v.For, &t.For}); err != nil {
		return err
	}
	t.On, t.Fault = v.On, v.Fault
	return nil
}

type nemesisJSON struct {
	Seed   seed.Seed       `json:"seed"`
	Mix    []Choice        `json:"mix"`
	MinFor json.RawMessage `json:"min_for"`
	MaxFor json.RawMessage `json:"max_for"`
	Quiet  json.RawMessage `json:"quiet"`
	Steps  int             `json:"steps"`
}

// MarshalJSON writes the nemesis; see the top of this file.
func (n Nemesis) MarshalJSON() ([]byte, error) {
	return json.Marshal(nemesisJSON{
		Seed:   n.Seed,
		Mix:    n.Mix,
		MinFor: durationJSON(n.MinFor),
		MaxFor: durationJSON(n.MaxFor),
		Quiet:  durationJSON(n.Quiet),
		Steps:  n.Steps,
	})
}

// UnmarshalJSON reads a nemesis; a field it does not have is an error.
func (n *Nemesis) UnmarshalJSON(data []byte) error {
	v := nemesisJSON{Seed: n.Seed, Mix: n.Mix, Steps: n.Steps}
	if err := decodeStrict("nemesis", data, &v,
		durationField{"min_for", &v.MinFor, &n.MinFor},
		durationField{"max_for", &v.MaxFor, &n.MaxFor},
		durationField{"quiet", &v.Quiet, &n.Quiet}); err != nil {
		return err
	}
	n.Seed, n.Mix, n.Steps = v.Seed, v.Mix, v.Steps
	return nil
}

// UnmarshalJSON reads a choice; a field it does not have is an error.
func (c *Choice) UnmarshalJSON(data []byte) error {
	type plain Choice // without this method
	return decodeStrict("choice", data, (*plain)(c))
}

// durationField is a duration field of what decodeStrict reads: the raw
// JSON the decoder fills, and where the duration goes.
type durationField struct {
	name string
	raw  *json.RawMessage
	to   *time.Duration
}

// decodeStrict decodes data into v, refusing fields v does not have, then
// reads each duration field from its raw JSON. JSON null changes nothing.
func decodeStrict(what string, data []byte, v any, durations ...durationField) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(what, err)
	}
	for _, d := range durations {
		if err := readDuration(what, d.name, *d.raw, d.to); err != nil {
			return err
		}
	}
	return nil
}

// jsonError prefixes err with what was being read, unless err comes from
// this package already (a fault's text, a nested step) and says so itself.
func jsonError(what string, err error) error {
	if strings.HasPrefix(err.Error(), "faults: ") {
		return err
	}
	return fmt.Errorf("faults: %s: %w", what, err)
}

// durationJSON writes d as a JSON string of Go's duration text.
func durationJSON(d time.Duration) json.RawMessage {
	b, _ := json.Marshal(d.String()) // a string always marshals
	return b
}

// readDuration reads a duration written as Go's duration text or as a
// whole number of nanoseconds. Absent (nil raw) or null leaves to alone.
func readDuration(what, field string, raw json.RawMessage, to *time.Duration) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("faults: %s: %s: %w", what, field, err)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("faults: %s: %s: bad duration %q: want Go's duration text such as 1.5s or 250ms", what, field, s)
		}
		*to = d
		return nil
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return fmt.Errorf("faults: %s: %s: bad duration %s: want Go's duration text such as \"1.5s\" or whole nanoseconds", what, field, raw)
	}
	*to = time.Duration(n)
	return nil
}
