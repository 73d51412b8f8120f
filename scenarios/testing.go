package scenarios

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/bubble"
)

// Test runs s as a subtest of t named after it, in a synctest bubble of
// the subtest's own on the virtual clock. The run's files go to the
// subtest's artifact directory (t.ArtifactDir: kept under the -artifacts
// flag's directory, removed otherwise). When the expectation is not met the
// subtest fails with every violation's sentence, the seed and the command
// that replays the run. A harness failure (a cluster that would not start)
// fails it too, as an error rather than a verdict.
func Test(t *testing.T, s Scenario) *Result {
	t.Helper()
	return test(t, s, false)
}

// TestParallel is Test with the subtest run in parallel with its
// siblings, as t.Parallel does: for a test that runs many scenarios. It
// returns nil, since the subtest has not finished when it returns; read
// each result from its artifact directory.
func TestParallel(t *testing.T, s Scenario) {
	t.Helper()
	test(t, s, true)
}

func test(t *testing.T, s Scenario, parallel bool) *Result {
	t.Helper()
	var res *Result
	t.Run(s.Name, func(t *testing.T) {
		t.Helper()
		if parallel {
			t.Parallel()
		}
		opts := Options{Out: t.ArtifactDir(), Replay: goTestCommand(t)}
		if s.withDefaults().Cluster.Clock != cluster.ClockVirtual {
			res = runTest(t, s, opts)
			return
		}
		// The subtest outside, the bubble inside: t.Run and t.Parallel
		// are not allowed in a bubble.
		bubble.Test(t, bubble.Options{Name: s.Name}, func(t *testing.T) { res = runTest(t, s, opts) })
	})
	return res
}

// runTest runs s for Test, in a bubble on the virtual clock, and fails t
// with what it found.
func runTest(t *testing.T, s Scenario, opts Options) *Result {
	t.Helper()
	// Not t.Context: it ends before cleanups run, and the run must heal
	// and close its cluster whatever happens.
	ctx, cancel := context.WithTimeout(context.Background(), budget(s))
	defer cancel()
	r, err := Run(ctx, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Error(err)
		return r
	}
	t.Logf("%s: %s in %v on the %s clock (%v of wall time; %d operations, %d fault events)",
		s.Name, r.Why, r.Timings.Total, r.Scenario.Cluster.Clock, r.Timings.Wall, r.Ops, len(r.Faults))
	return r
}

// budget bounds one run: the workload, a settle after the schedule, the
// cluster's start and close, and the checkers, generously.
func budget(s Scenario) time.Duration {
	return s.withDefaults().Workload.Duration.D() + 2*time.Minute
}

// goTestCommand is the command that runs t again.
func goTestCommand(t *testing.T) string {
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return fmt.Sprintf("go test -count=1 -run '%s' .", strings.Join(parts, "/"))
}
