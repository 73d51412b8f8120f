package results

import (
	"math"
	"testing"
)

// MetLow is the Wilson score interval's lower bound: the published values
// for a few counts, nothing for no judged run.
func TestMetLow(t *testing.T) {
	for _, c := range []struct {
		met, judged int
		want        float64
	}{
		{20, 20, 0.8389},
		{19, 20, 0.7639},
		{100, 100, 0.9630},
		{50, 50, 0.9287},
		{0, 10, 0},
	} {
		got, ok := ScenarioSummary{Runs: c.judged, Met: c.met}.MetLow()
		if !ok || math.Abs(got-c.want) > 0.0005 {
			t.Errorf("%d of %d: %.4f, %v; want %.4f", c.met, c.judged, got, ok, c.want)
		}
	}
	if _, ok := (ScenarioSummary{}).MetLow(); ok {
		t.Error("no judged run: a bound")
	}
}
