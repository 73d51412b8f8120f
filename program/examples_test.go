package program_test

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/program"
	"github.com/etcdsim/etcdsim/scenarios"
)

// The examples' adapters: npm etcd3 under node (examples/node, after npm
// ci) and Debian's python3-etcd3 under /usr/bin/python3 (examples/python).
// make examples installs the first; .ci/run the second.
var (
	nodeAdapter   = []string{"node", "../examples/node/adapter.js"}
	pythonAdapter = []string{"/usr/bin/python3", "../examples/python/adapter.py"}
)

// examples are the examples' adapters, each with the name its lock recipe
// takes.
var examples = []struct {
	name string
	argv []string
}{
	{"npm-etcd3", nodeAdapter},
	{"python-etcd3", pythonAdapter},
}

// needExample skips unless the example's runtime and library are here,
// saying what to install.
func needExample(t *testing.T, argv []string) {
	t.Helper()
	switch argv[0] {
	case "node":
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("no node on PATH: install Node.js 20")
		}
		if _, err := os.Stat("../examples/node/node_modules/etcd3"); err != nil {
			t.Skip("examples/node has no node_modules: run npm ci there (make examples does)")
		}
	default:
		if exec.Command(argv[0], "-c", "import etcd3").Run() != nil {
			t.Skip("Debian's python3-etcd3 is not installed: apt-get install -y python3-etcd3")
		}
	}
}

// TestExamplesConform: both examples' adapters speak the protocol.
func TestExamplesConform(t *testing.T) {
	c := realCluster(t)
	for _, tc := range []struct {
		name, family string
		argv         []string
	}{
		{"node/lock", "lock", nodeAdapter},
		{"node/election", "election", nodeAdapter},
		{"node/discovery", "discovery", nodeAdapter},
		{"node/register", "register", nodeAdapter},
		{"python/lock", "lock", pythonAdapter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needExample(t, tc.argv)
			var out bytes.Buffer
			err := program.Conform(clustertest.Context(t), tc.family, program.Config{Argv: tc.argv}, clustertest.Client(t, c, "conform-"+tc.family), &out)
			require.NoError(t, err, out.String())
		})
	}
}

// TestExamplesFindings: what etcdsim finds in both libraries' locks,
// judged by the lock family's pause scenario, which every run shows: the
// holder paused past its TTL writes after another client acquired (the
// guarded resource takes it: the locks hand out no fencing token). Both
// adapters declare their locks unfenced in their init answers, so fencing
// is left out as not applicable, with their reason, rather than judged
// unknown. See docs/protocol.md.
func TestExamplesFindings(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("12-second real-clock runs")
	}
	for _, tc := range examples {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each run mostly waits, on a cluster of its own
			needExample(t, tc.argv)
			s := find(t, scenarios.LockSafety(program.Lock(tc.name, tc.argv...)), "/pause-holder")
			s.Expect = checker.Expectation{Checker: checker.CheckerMutualExclusion}
			// The pause fires on the first acquire, which waits for the
			// program's start: seconds for node on a loaded machine. 25 s
			// leave the pause room to end within the run.
			s.Workload.Duration = scenarios.Duration(25 * time.Second)
			res := scenarios.Test(t, s)
			for _, c := range res.Checks {
				require.NotEqual(t, checker.CheckerFencing, c.Checker, "fencing judged (%s: %s) for a lock its program declared unfenced", c.Verdict, c.Summary)
			}
			require.NotEmpty(t, res.NotApplicable, "fencing is not listed as not applicable")
			require.Contains(t, res.NotApplicable[0], "fencing")
		})
	}
}
