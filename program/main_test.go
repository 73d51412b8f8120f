package program_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/etcdsim/etcdsim/cluster"
)

// adapterArg marks a run of this test binary as a program speaking the
// protocol (see adapter_test.go), started by the tests themselves.
const adapterArg = "etcdsim-test-adapter"

func TestMain(m *testing.M) {
	for i, a := range os.Args {
		if a == adapterArg && i+1 < len(os.Args) {
			os.Exit(adapter(os.Args[i+1]))
		}
	}
	goleak.VerifyTestMain(m, cluster.EtcdLeaks()...)
}

// adapterArgv is the command that runs this test binary as the adapter
// of mode.
func adapterArgv(mode string) []string {
	return []string{os.Args[0], "-test.run=^$", adapterArg, mode}
}

// skipUnderRace skips a test that judges whole real-clock runs: under the
// race detector the harness and the Go test programs run several times
// slower, and on 2 shared cores the runs' timing no longer shows the
// recipe (a pause fired too late to end within the run, a waiter giving up
// on a slow program). make examples and go test without -race run them.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("real-clock scenario runs are judged without the race detector (make examples)")
	}
}
