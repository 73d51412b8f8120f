// Package seed is the one seed type of etcdsim: a run's Seed is where every
// random choice of the run comes from — its fault schedule, its workload,
// the network's jitter — so one seed replays one run.
//
// It is a package of its own, below every other, because every layer names
// a seed: a history records the seed of its run (checker.Meta), a cluster
// seeds its network's jitter (cluster.Config), a schedule its choices
// (faults.Timeline, faults.Nemesis), a scenario its run
// (scenarios.Scenario). None of them needs any of the others for it.
//
//	s, err := seed.Parse("42")
//	rng := s.Rand(1) // stream 1 of seed 42; stream 2 is another source
package seed
