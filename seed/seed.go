package seed

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Seed is a run's random seed: every random choice of a run — its fault
// schedule, its workload, the network's jitter — comes from it, so one seed
// replays one run. It is the one seed type of every package.
//
// In JSON a Seed is a string of decimal digits ("18446744073709551615"), so
// that a seed above 2^53 survives JavaScript, which holds numbers as
// float64; a JSON number is accepted on input too. As text (flags, YAML) it
// is the same decimal digits.
type Seed uint64

// Rand returns a random source seeded by s. stream separates sources drawn
// from one seed for different purposes (the schedule, the workload, the
// network), so that a change to one leaves the others' choices alone.
func (s Seed) Rand(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(s), stream))
}

// String renders the seed in decimal.
func (s Seed) String() string { return strconv.FormatUint(uint64(s), 10) }

// Parse reads a seed written in decimal, the form String writes.
func Parse(text string) (Seed, error) {
	u, err := strconv.ParseUint(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("seed: parse %q: want a whole number from 0 to %d", text, uint64(1<<64-1))
	}
	return Seed(u), nil
}

// MarshalText writes the seed in decimal.
func (s Seed) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a seed written in decimal.
func (s *Seed) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// MarshalJSON writes the seed as a JSON string of decimal digits.
func (s Seed) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a seed from a JSON string of decimal digits, or from
// a JSON number that is a whole number.
func (s *Seed) UnmarshalJSON(b []byte) error {
	text := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &text); err != nil {
			return fmt.Errorf("seed: %s: %w", b, err)
		}
	}
	return s.UnmarshalText([]byte(text))
}
