// Package scenarios joins the parts of etcdsim into runs: a scenario is a
// recipe × a workload × a fault schedule × checkers, with the expectation
// the checkers must meet and the seed every random choice comes from.
//
// A Scenario is data. It round-trips through JSON, so a result file says
// exactly what ran and can be run again. All lists the registered
// scenarios — every correct recipe of every family under the standard
// fault mix, expecting a pass, and every pitfall of the gallery under the
// schedule that exposes it, expecting the violation its recipe's registry
// entry names, and the upstream family, which reproduces reports against
// etcd on etcd's own code beside their fixes — and the same list feeds go
// test and simrun.
//
// Run runs one: it starts the cluster and clients, arms the schedule, runs
// the workload (which records each operation once, on the run's recorder,
// so that triggers fire on what the clients do and checkers judge it),
// heals, checks, and writes result.json and history.json (package
// scenarios/results reads them back, and owns their format).
//
// In a go test, your own lock under the standard fault mix:
//
//	func TestMyLock(t *testing.T) {
//		my := lock.Recipe{Name: "my-lock", Summary: "ours", New: newMyLock}
//		for _, s := range scenarios.LockSafety(my) {
//			scenarios.Test(t, s)
//		}
//	}
//
// How a lock holder makes sure it still holds the lock before each write
// is Workload.OwnerCheck, which LockSafety's scenarios leave at its
// default: OwnerCheckDone ("done") watches the holder's Done channel, so a
// recipe whose Done closes late, or never, writes on after its lease is
// gone and the run says which; OwnerCheckRead ("read") asks the holder
// instead — lock.Checker's Owned, a read of its key in etcd, as a library
// with a Check method is meant to be used — and ignores Done. Set it on
// each scenario to run a recipe the way its library is used
// (s.Workload.OwnerCheck = scenarios.OwnerCheckRead); a holder without
// Owned then cannot run, and the run says so.
//
// Each process's recipe value — a Locker, an Elector, a Registrar… — that
// has a method Close() error is closed once, as its process crashes or
// the run ends; what a Close does wrong, and goroutines a recipe leaves
// behind, are Result.RecipeFaults (see lock.Locker).
//
// Every family takes a user's recipe this way: ElectionSafety,
// DiscoverySafety, DiscoveryResolverSafety and DiscoveryPairSafety,
// RegisterSafety, RWMutexSafety, QueueSafety, BarrierSafety,
// PlainBarrierSafety and STMSafety (TestDocNamesEveryFamily keeps this
// list whole). Seeds copies scenarios over many seeds; WithLock (and the
// With… method of each family) puts a recipe of one's own on a registered
// scenario's schedule as a scenario of its own. TestParallel runs many scenarios side
// by side.
// A run that misses its expectation fails with the violations, the seed
// and the command that replays it.
//
// A recipe whose lease TTL is fixed in its code is judged by the TTL its
// leases were granted, and the run says once that it is not the
// scenario's. AtTTL (Scenario.WithTTL for one) plays a constructor's
// scenarios at the recipe's TTL, every time they set and every judge's
// bound scaled by one rule; Workload.ObservedTTL reads the TTL from a
// fault-free probe of the workload and runs at it:
//
//	ss, err := scenarios.AtTTL(6*time.Second, scenarios.ElectionSafety(my))
//
// A fault schedule of one's own — any faults.Schedule — runs beside a
// scenario's timeline and nemesis as Faults.Schedule, named by
// Faults.ScheduleName. JSON carries the name, not the value: a run of it
// replays through the program that has it, as a run of one's own recipe
// does (simrun.Main with the scenario among the program's own).
//
// Shrink cuts a failing scenario down — fewer and shorter faults, fewer
// clients, a shorter run — as long as a judge of the caller's says each
// smaller one still fails; Reductions lists the candidates one step
// smaller, and simrun shrink runs the search against real clusters.
package scenarios
