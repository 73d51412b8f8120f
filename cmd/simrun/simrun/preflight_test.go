package simrun_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"
	"github.com/etcdsim/etcdsim/scenarios"
)

// TestMistakesBeforeAnyCluster checks that a mistake in what the user
// wrote — a program that cannot be started, a fault schedule longer than
// the run, a fault aimed at a member the run will not have, two overrides
// of one name, a negative or out-of-range field of a campaign file, a
// program's own scenario named as a registered one — is refused before
// any cluster starts: exit 2, one line that names the mistake (and, in a
// campaign file, its line), no output directory, nothing left running.
func TestMistakesBeforeAnyCluster(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "adapter.js")
	if err := os.WriteFile(notExec, []byte("console.log('hi')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	campaign := func(name, text string) string {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const head = "scenarios: [lock/mutex/leader-kill]\nseeds: [1]\n"
	registered, err := scenarios.Lookup("lock/mutex/leader-kill")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  func(out string) []string
		extra []scenarios.Scenario
		want  []string // in the one line
	}{
		{"command not found", func(out string) []string {
			return []string{"run", "-command", "/nonexistent/adapter --flag", "-out", out, "lock/mutex/leader-kill"}
		}, nil, []string{`-command "/nonexistent/adapter --flag": cannot run /nonexistent/adapter`, "no such file"}},
		{"command not on PATH", func(out string) []string {
			return []string{"run", "-command", "etcdsim-no-such-program", "-out", out, "lock/mutex/leader-kill"}
		}, nil, []string{"cannot run etcdsim-no-such-program", "not found in $PATH"}},
		{"command not executable", func(out string) []string {
			return []string{"run", "-command", notExec, "-out", out, "lock/mutex/leader-kill"}
		}, nil, []string{"cannot run " + notExec, "permission denied"}},
		{"command glob of scenarios none can run", func(out string) []string {
			return []string{"run", "-command", "/bin/true", "-out", out, "lock/mutex/expire-token-*"}
		}, nil, []string{"none of the scenarios matched can run a program's recipe", "lock/mutex/expire-token-holder, lock/mutex/expire-token-holder-jwt (cluster.auth:"}},
		{"command for a scenario named that cannot run it", func(out string) []string {
			return []string{"run", "-command", "/bin/true", "-out", out, "lock/mutex/expire-token-holder"}
		}, nil, []string{"-command: lock/mutex/expire-token-holder cannot run a program's recipe: cluster.auth"}},
		{"duration shorter than the schedule", func(out string) []string {
			return []string{"run", "-duration", "2s", "-out", out, "lock/mutex/leader-kill"}
		}, nil, []string{"-duration: lock/mutex/leader-kill: faults.timeline step 1 (at 4s for 1s: kill(leader)) ends at 5s, after the run's workload.duration 2s"}},
		{"campaign schedule longer than its run", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("long", head+"overrides:\n  - name: long\n    duration: 3s\n    faults:\n      - \"at 1s: compact\"\n      - \"at 5s for 2s: kill(leader)\"\n")}
		}, nil, []string{"line 8: lock/mutex/leader-kill[long]: faults.timeline step 1 (at 5s for 2s: kill(leader)) ends at 7s, after the run's workload.duration 3s"}},
		{"campaign duration shorter than the scenario's schedule", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("short", head+"overrides:\n  - name: short\n    duration: 2s\n")}
		}, nil, []string{"line 5: lock/mutex/leader-kill[short]: faults.timeline step 1"}},
		{"campaign fault on a member the run lacks", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("m9", head+"overrides:\n  - name: f\n    faults:\n      - \"at 1s for 1s: pause(client c1)\"\n      - \"at 2s for 1s: freeze(m9)\"\n")}
		}, nil, []string{"line 7: lock/mutex/leader-kill[f]:", "freeze(m9): no member m9 (members: [m0 m1 m2])"}},
		{"campaign fault on a member of the smaller variant", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("m4", "scenarios: [lock/mutex/leader-kill]\nseeds: [1]\nmembers: [5, 3]\noverrides:\n  - name: f\n    faults: [\"at 1s for 1s: freeze(m4)\"]\n")}
		}, nil, []string{"line 6: lock/mutex/leader-kill[members-3-f]:", "no member m4"}},
		{"campaign fault on a client the run lacks", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("c9", head+"overrides:\n  - name: f\n    clients: 2\n    faults: [\"at 1s for 1s: pause(client c3)\"]\n")}
		}, nil, []string{"line 6: lock/mutex/leader-kill[f]:", "c3"}},
		{"campaign overrides of one name", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("twice", head+"overrides:\n  - name: a\n    duration: 12s\n  - duration: 13s\n    name: a\n")}
		}, nil, []string{`line 7: overrides[1].name "a" is overrides[0]'s too (line 4)`}},
		{"campaign negative clients", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("neg", head+"overrides:\n  - name: a\n    duration: 12s\n    clients: -2\n")}
		}, nil, []string{"line 6: overrides[0].clients -2: must not be negative"}},
		{"campaign negative duration", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("negd", head+"overrides:\n  - name: a\n    clients: 2\n    duration: -1s\n")}
		}, nil, []string{"line 6: overrides[0].duration -1s: must not be negative"}},
		{"campaign too many clients", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("many", head+"overrides:\n  - name: a\n    duration: 12s\n    clients: 100\n")}
		}, nil, []string{"line 6: lock/mutex/leader-kill[a]: workload.clients 100"}},
		{"campaign ttl not whole seconds", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("ttl", head+"overrides:\n  - name: a\n    duration: 12s\n    ttl: 1500ms\n")}
		}, nil, []string{"line 6: ttl: 1.5s is not a whole number of seconds, which is what etcd grants: use 1s or 2s"}},
		{"campaign ttl zero", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("ttl0", head+"overrides:\n  - name: a\n    ttl: 0s\n")}
		}, nil, []string{"line 5: ttl: 0s: etcd grants whole seconds, at least 1s"}},
		{"ttl not whole seconds", func(out string) []string {
			return []string{"run", "-ttl", "1500ms", "-out", out, "lock/mutex/leader-kill"}
		}, nil, []string{`simrun run: -ttl: 1.5s is not a whole number of seconds, which is what etcd grants: use 1s or 2s, or "observed"`}},
		{"ttl below a second", func(out string) []string {
			return []string{"run", "-ttl", "500ms", "-out", out, "lock/mutex/leader-kill"}
		}, nil, []string{`-ttl: 500ms: etcd grants whole seconds, at least 1s`}},
		{"ttl negative", func(out string) []string {
			return []string{"run", "-ttl", "-6s", "-out", out, "lock/mutex/leader-kill"}
		}, nil, []string{`-ttl: -6s: etcd grants whole seconds, at least 1s`}},
		{"ttl no duration", func(out string) []string {
			return []string{"run", "-ttl", "long", "-out", out, "lock/mutex/leader-kill"}
		}, nil, []string{`"long" is no duration: want a whole number of seconds, at least 1s, such as 6s, or "observed"`}},
		{"campaign auth malformed", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("auth", head+"overrides:\n  - name: a\n    auth: kerberos\n")}
		}, nil, []string{"line 5: auth:"}},
		{"campaign members too many", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("members", "scenarios: [lock/mutex/leader-kill]\nseeds: [1]\nmembers:\n  - 3\n  - 12\n")}
		}, nil, []string{"line 5: lock/mutex/leader-kill[members-12]: cluster.members 12"}},
		{"campaign unknown scenario", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("unknown", "seeds: [1]\nscenarios:\n  - lock/mutex/contention\n  - lock/mutex/leadr-kill\n")}
		}, nil, []string{"line 4:", `"lock/mutex/leadr-kill"`}},
		{"campaign seeds count zero", func(out string) []string {
			return []string{"campaign", "-out", out, "-f", campaign("seeds", "scenarios: [lock/mutex/leader-kill]\nseeds: {base: 1, count: 0}\n")}
		}, nil, []string{"line 2: seeds.count 0"}},
		{"own scenario named as a registered one", func(out string) []string {
			return []string{"run", "-out", out, "lock/mutex/leader-kill"}
		}, []scenarios.Scenario{registered}, []string{`own scenarios repeat names: "lock/mutex/leader-kill" (also a registered scenario)`}},
		{"own scenario named as a registered one, listed", func(string) []string { return []string{"list"} },
			[]scenarios.Scenario{registered}, []string{`"lock/mutex/leader-kill" (also a registered scenario)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			code := simrun.Run(context.Background(), tt.args(out), &stdout, &stderr, tt.extra...)
			if code != 2 {
				t.Errorf("exit code %d, want 2; stderr:\n%s", code, stderr.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") {
				t.Errorf("stderr is not one line:\n%s", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr does not say %q:\n%s", w, msg)
				}
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout is not empty:\n%s", stdout.String())
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("-out %s was made (stat: %v); a refused batch writes nothing", out, err)
			}
			goleak.VerifyNone(t, cluster.EtcdLeaks()...)
		})
	}
}
