package results_test

import (
	"testing"

	"github.com/etcdsim/etcdsim/scenarios/results"
	"github.com/etcdsim/etcdsim/seed"
)

func TestRunDirAndLabel(t *testing.T) {
	tests := []struct {
		name, scenario, variant string
		seed                    seed.Seed
		dir, label              string
	}{
		{"plain", "lock/mutex/leader-kill", "", 7, "lock-mutex-leader-kill/seed-7", "lock/mutex/leader-kill"},
		{"variant", "lock/mutex/leader-kill", "members-5-quick", 18446744073709551615, "lock-mutex-leader-kill/members-5-quick/seed-18446744073709551615", "lock/mutex/leader-kill[members-5-quick]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := results.RunDir(tt.scenario, tt.variant, tt.seed)
			if dir != tt.dir {
				t.Errorf("RunDir = %q, want %q", dir, tt.dir)
			}
			if l := results.Label(tt.scenario, tt.variant); l != tt.label {
				t.Errorf("Label = %q, want %q", l, tt.label)
			}
			variant, seed, ok := results.ParseRunDir(dir)
			if !ok || variant != tt.variant || seed != tt.seed {
				t.Errorf("ParseRunDir(%q) = %q, %s, %v; want %q, %s, true", dir, variant, seed, ok, tt.variant, tt.seed)
			}
		})
	}
}

// A directory that RunDir does not make is not taken for a run's.
func TestParseRunDirRefuses(t *testing.T) {
	for _, rel := range []string{".", "seed-1", "x/seed-01", "x/seed-", "x/seed-a", "x/y/z/seed-1", "x/replay", "../seed-1", "x/../seed-1", "x//seed-1"} {
		if v, s, ok := results.ParseRunDir(rel); ok {
			t.Errorf("ParseRunDir(%q) = %q, %s, true; want not a run directory", rel, v, s)
		}
	}
}
