package simrun

import (
	"fmt"
	"os"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/piddir"
)

// A simrun killed with SIGKILL runs no cleanup: its children die with it
// (their parent-death signal), but the temp dirs it made stay — each run
// in flight leaves its child's, with the members' data, hundreds of
// megabytes, and the member program it built. Each is named after the
// simrun that made it (package piddir), and the next simrun to start
// removes those of simruns that are gone.

// childTempPrefix names a run's child's temp dir (its TMPDIR); the ID of
// the simrun that made it follows.
const childTempPrefix = "etcdsim-child-"

// leftoverPrefixes are the temp dirs a simrun sweeps at its start: its
// runs' children's, and cluster's own, which carry their maker's ID the
// same way (cluster.TempPrefixes: clusters run in the process, clusters of
// member binaries, and the member binary built for -member-binaries); and
// "etcdsim-procs-", what clusters of members run as programs were called
// before they were member binaries.
var leftoverPrefixes = append([]string{childTempPrefix, "etcdsim-procs-"}, cluster.TempPrefixes()...)

// makeChildTemp makes the temp dir of a run's child process.
func makeChildTemp() (string, error) { return piddir.Make(childTempPrefix) }

// sweepLeftovers starts removing what simruns that are gone left in the
// temp dir, and returns the function that waits for it, to be called
// before simrun exits. What it could not remove it says on stderr.
func (e *env) sweepLeftovers() (wait func()) {
	w := piddir.Sweep(os.TempDir(), leftoverPrefixes...)
	return func() {
		if _, err := w(); err != nil {
			fmt.Fprintf(e.stderr, "simrun: %v\n", err)
		}
	}
}
