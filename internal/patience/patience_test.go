package patience

import (
	"testing"
	"time"
)

func TestFactorIsAtLeastOneAndBounded(t *testing.T) {
	f := Factor()
	if f < 1 || f > MaxFactor {
		t.Fatalf("Factor() = %v, want between 1 and %d", f, MaxFactor)
	}
	if raceEnabled && f < raceFactor {
		t.Errorf("Factor() = %v under the race detector, want at least %d", f, raceFactor)
	}
	t.Logf("factor %.2f (load %.2f)", f, load())
}

func TestEnvMultiplies(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		want      float64
	}{
		{name: "unset", env: "", want: 1},
		{name: "two", env: "2", want: 2},
		{name: "a half", env: "0.5", want: 0.5},
		{name: "zero", env: "0", want: 1},
		{name: "negative", env: "-3", want: 1},
		{name: "not a number", env: "slow", want: 1},
		{name: "infinite", env: "Inf", want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(Env, tc.env)
			if got := envFactor(); got != tc.want {
				t.Errorf("%s=%q: multiplier %v, want %v", Env, tc.env, got, tc.want)
			}
		})
	}
}

func TestScaleMultipliesByTheFactor(t *testing.T) {
	t.Setenv(Env, "2")
	d := Scale(time.Second)
	if d < 2*time.Second || d > 2*MaxFactor*time.Second {
		t.Errorf("Scale(1s) with %s=2 = %v, want between 2s and %ds", Env, d, 2*MaxFactor)
	}
}

// Heartbeat is whole milliseconds, at least the default 10 ms, and grows
// with the factor.
func TestHeartbeatIsWholeMillisecondsAndScales(t *testing.T) {
	t.Setenv(Env, "3")
	hb := Heartbeat()
	if hb%time.Millisecond != 0 || hb < 30*time.Millisecond {
		t.Errorf("Heartbeat() = %v at %s=3; want whole milliseconds, at least 30ms", hb, Env)
	}
}
