package simrun

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/scenarios"
)

func TestLeakWarning(t *testing.T) {
	jobsOf := func(n int, ws ...scenarios.Workload) []job {
		var out []job
		for i := range n {
			out = append(out, job{scenario: scenarios.Scenario{Name: "s", Workload: ws[i%len(ws)]}})
		}
		return out
	}
	mutex := scenarios.Workload{Family: scenarios.FamilyLock, Recipe: "mutex"}
	v3lock := scenarios.Workload{Family: scenarios.FamilyLock, Recipe: "v3lock"}
	server := scenarios.Workload{Family: scenarios.FamilyElection, Recipe: "server"}
	rechecked := scenarios.Workload{Family: scenarios.FamilyElection, Recipe: "rechecked"}
	own := scenarios.Workload{Family: scenarios.FamilyElection, Recipe: "server", Election: &election.Recipe{Name: "server"}}
	discovery := scenarios.Workload{Family: scenarios.FamilyDiscovery, Recipe: "server"}
	for _, tc := range []struct {
		name      string
		jobs      []job
		inProcess bool
		want      []string // substrings of the warning; nil means none
	}{
		{name: "v3lock in process", jobs: jobsOf(31, mutex, v3lock), inProcess: true, want: []string{"31 runs", "lock v3lock", "without -inprocess"}},
		{name: "election server in process", jobs: jobsOf(40, server), inProcess: true, want: []string{"election server", "docs/upstream.md"}},
		{name: "both named once", jobs: jobsOf(50, v3lock, server), inProcess: true, want: []string{"(lock v3lock, election server)"}},
		{name: "child processes", jobs: jobsOf(100, v3lock, server), inProcess: false},
		{name: "30 runs are few enough", jobs: jobsOf(30, v3lock), inProcess: true},
		{name: "client-side recipes", jobs: jobsOf(100, mutex, rechecked), inProcess: true},
		{name: "a user's own recipe", jobs: jobsOf(100, own), inProcess: true},
		{name: "server is an election recipe", jobs: jobsOf(100, discovery), inProcess: true},
		{name: "no jobs", inProcess: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := leakWarning(tc.jobs, tc.inProcess)
			if tc.want == nil {
				if got != "" {
					t.Fatalf("want no warning, got %q", got)
				}
				return
			}
			if strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "\n") {
				t.Errorf("want one line, got %q", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("warning %q does not say %q", got, w)
				}
			}
		})
	}
}
