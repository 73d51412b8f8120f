// Package simrun is the simrun command: it lists, runs, replays and
// campaigns etcdsim scenarios, each a real embedded etcd cluster in this
// process, and summarizes what the checkers found.
//
//	simrun list [-json]
//	simrun run [-seed N] [-runs N] [-parallel P] [-duration D] [-members M] [-out DIR] NAME...
//	simrun gallery [-parallel P] [-out DIR]
//	simrun replay [-out DIR] RESULT.json
//	simrun campaign -f FILE [-shard i/n | -shard auto -shards N] [-parallel P] [-out DIR]
//	simrun merge -out DIR SHARD-DIR...
//
// Exit codes: 0 when every run met its expectation; 1 when one did not,
// or the harness failed in one; 2 for a usage or configuration error,
// reported before any cluster starts; 130 when simrun was interrupted
// (SIGINT or SIGTERM): it starts no more runs, lets the running ones heal
// and close their clusters, and writes the results so far and the
// summary. A second signal kills it at once.
//
// A program of your own gets a full simrun with your scenarios added to
// the registered ones:
//
//	func main() {
//		simrun.Main(scenarios.LockSafety(myLock)...)
//	}
package simrun
