// Package program runs a recipe of any family — lock, election, discovery
// registrar and resolver, register (KV), rwmutex, queue, barrier, plain
// barrier, stm — written in any language: each simulated client is a
// program of its own that speaks JSON lines on stdin and stdout
// (docs/protocol.md), judged by the same scenarios, faults and checkers
// as a recipe in Go. Lock, Election, Registrar, Resolver, Register,
// RWMutex, Queue, Barrier, PlainBarrier and STM build the family's recipe
// value.
//
//	for _, s := range scenarios.LockSafety(program.Lock("npm-etcd3", "node", "examples/node/adapter.js")) {
//		scenarios.Test(t, s)
//	}
//
// It stands below package scenarios, which imports it: a scenario's
// workload.command names the program, and scenarios rebuilds the recipe
// from it, so a run replays from its JSON alone. Such a scenario runs on
// the real clock, since the program dials etcd through real sockets.
// Before the run's clock starts, Prestart starts every client's program
// and waits until each says it is ready (its first line, a ping), so a
// program that loads slowly does not eat into the run.
//
// The program is handed the endpoints of its client's own links, so every
// network fault aimed at the client reaches it. A crash of the client
// kills the process group, and a pause freezes it (SIGSTOP, then SIGCONT on
// heal; see faults.Program). A program that exits, writes what is not
// JSON, answers what was not asked, or answers late or never is killed,
// and the run records that as the client's crash, naming the line and the
// operation pending. Conform checks a program against the protocol before
// a campaign; simrun conform is its command.
package program
