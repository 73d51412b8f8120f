// Package simrun is the simrun command: it lists, runs, replays and
// campaigns etcdsim scenarios, each a real embedded etcd cluster, and
// summarizes what the checkers found.
//
//	simrun list [-json]
//	simrun run [-seed N] [-runs N] [-parallel P] [-duration D] [-members M] [-out DIR] [-run-timeout D] [-inprocess] NAME...
//	simrun gallery [-parallel P] [-out DIR] [-run-timeout D] [-inprocess]
//	simrun replay [-out DIR] [-inprocess] RESULT.json
//	simrun campaign -f FILE [-shard i/n | -shard auto -shards N] [-parallel P] [-out DIR] [-run-timeout D] [-inprocess]
//	simrun merge -out DIR SHARD-DIR...
//	simrun explore -family F -recipe R (-budget D | -runs N) [-seed S] [-shard i/n] [-parallel P] -out DIR   (docs/explore.md)
//
// Each run of run, gallery, campaign and replay goes to a child process of
// its own: simrun starts its own binary again with a hidden command, __run,
// which runs the scenario the parent wrote to DIR/scenario.json into DIR
// (result.json, history.json, child.log with its standard error — what
// the run's libraries log —, stdout.log with its standard output,
// child.pid) and exits; the parent reads the result back. simrun's child
// writes nothing to standard output itself: a run whose stdout.log is not
// empty had a recipe print there directly, and its result says so among
// the recipe's faults. So a replay's output ends with its verdict, the
// library's chatter kept in the run's files. A run that panics, is killed,
// exits nonzero, leaves no result, a truncated one or another run's, or
// outlives its deadline (its workload's duration plus 2m, or -run-timeout)
// is a harness failure: it has no verdict, its error names the run and its
// files, which stay, and the batch goes on. The child's process group is
// sent SIGTERM when simrun is interrupted or the deadline passes, and
// SIGKILL 3s later; it dies with simrun, and its temporary files are
// removed whatever became of it. A scenario's JSON cannot carry a
// program's own recipe, so a child takes the recipe from the scenario of
// the same name its program has (see childScenario): a program that calls
// Run itself must pass it its arguments unchanged. -inprocess keeps the
// runs in simrun, as they were before: for a debugger, and the default in
// a test binary, which started again would run its tests.
//
// Exit codes: 0 when every run met its expectation; 1 when one did not,
// or the harness failed in one; 2 for a usage or configuration error,
// reported before any cluster starts; 130 when simrun was interrupted
// (SIGINT or SIGTERM): it starts no more runs, lets the running ones heal
// and close their clusters, and writes the results so far and the
// summary, which lists every run it started — one stopped before it had a
// verdict as interrupted. A second signal kills the running child
// processes at once, and simrun still writes the summary and exits 130; a
// third kills simrun.
//
// What a batch leaves in its -out directory — the run directories and
// summary.json — is package scenarios/results's: simrun writes through it
// and reads back through it. summary.json is written as the batch begins,
// as runs finish and when it ends. A campaign (or shard) into a directory
// that holds part of the same campaign resumes: it keeps the runs whose
// files read whole and agree, and reruns the truncated, interrupted and
// missing ones; a directory of another campaign, shard or command is
// refused (exit 2). See resume.
//
// A program of your own gets a full simrun with your scenarios added to
// the registered ones:
//
//	func main() {
//		simrun.Main(scenarios.LockSafety(myLock)...)
//	}
package simrun
