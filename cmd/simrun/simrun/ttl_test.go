package simrun_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// loopElector is an HA manager's election: its lease TTL fixed at 6 s, and
// a main loop that campaigns only at its next wake-up, every TTL/3.
type loopElector struct{ election.Elector }

func (l loopElector) Campaign(ctx context.Context, v string) (election.Leadership, error) {
	select {
	case <-time.After(2 * time.Second):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return l.Elector.Campaign(ctx, v)
}

// An HA manager whose election has its TTL fixed at 6 s runs a schedule
// written for 1 s under simrun run -ttl 6s, or -ttl observed, with no
// edit: the run's scenario is the schedule at 6 s, its liveness bound
// 1.5 s × 6, and its 2 s hand-overs are judged live. Under -race only
// -ttl observed runs: its run is the -ttl 6s one after a probe.
func TestRunAtTheRecipesTTL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	r := election.Recipe{Name: "ha-manager", Summary: "an HA manager's election: TTL fixed at 6 s, a loop every 2 s",
		New: func(cli *clientv3.Client, prefix string, _ election.Options) (election.Elector, error) {
			e, err := election.NewRechecked(cli, prefix, election.Options{TTL: 6 * time.Second})
			return loopElector{e}, err
		}}
	ss := scenarios.ElectionSafety(r)
	s := ss[slices.IndexFunc(ss, func(s scenarios.Scenario) bool { return strings.HasSuffix(s.Name, "/contention") })]
	for _, tt := range []struct{ ttl, note string }{
		{"6s", ""},
		{"observed", "the workload took the recipe's TTL"},
	} {
		t.Run(tt.ttl, func(t *testing.T) {
			if tt.ttl == "6s" && patience.RaceEnabled {
				t.Skip("race detector on: the observed case puts the same scaled run under it; make test runs this one without the detector (SAMPLED_TESTS)")
			}
			out := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			code := simrun.Run(context.Background(), []string{"run", "-inprocess", "-ttl", tt.ttl, "-out", out, s.Name}, &stdout, &stderr, s)
			if code != 0 {
				t.Errorf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
			paths, _ := filepath.Glob(filepath.Join(out, "*", "*", results.ResultFile))
			if len(paths) != 1 {
				entries, _ := os.ReadDir(out)
				t.Fatalf("found result files %v under %s (%v)", paths, out, entries)
			}
			res, err := results.ReadResult(paths[0])
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Scenario.Workload.TTL.D(); got != 6*time.Second {
				t.Errorf("the run's TTL was %v, want 6s", got)
			}
			i := slices.IndexFunc(res.Scenario.Checkers, func(c scenarios.Check) bool { return c.Name == checker.CheckerLiveness })
			if got := res.Scenario.Checkers[i].Bound.D(); got != 9*time.Second {
				t.Errorf("the run's liveness bound was %v, want 9s", got)
			}
			said := slices.ContainsFunc(res.RecipeFaults, func(f string) bool { return strings.Contains(f, "TTL") })
			if want := tt.note != ""; said != want || (want && !slices.ContainsFunc(res.RecipeFaults, func(f string) bool { return strings.HasPrefix(f, tt.note) })) {
				t.Errorf("the run's sentences %q; want a TTL sentence %v (%q)", res.RecipeFaults, want, tt.note)
			}
		})
	}
}
