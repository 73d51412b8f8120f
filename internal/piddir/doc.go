// Package piddir makes temporary directories named after the process that
// owns them, and sweeps those whose owner is gone.
//
// A process killed with SIGKILL runs no deferred cleanup, so whatever it
// made under the system's temp dir stays there. A directory made by Make
// carries its owner's process ID in its name ("etcdsim-child-4711-…"), and
// Sweep, called when a later process starts, removes every such directory
// whose owner no longer runs: a kill -9 costs disk only until the next start.
//
//	wait := piddir.Sweep(os.TempDir(), "etcdsim-child-")
//	defer wait()
//	dir, err := piddir.Make("etcdsim-child-")
//	defer os.RemoveAll(dir)
//
// This is the naming cluster uses for its member program's build directory
// and its clusters of member processes (cluster/procprogram.go).
package piddir
