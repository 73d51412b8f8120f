package simrun

import (
	"cmp"
	"slices"
	"time"
)

// dispatchOrder is the order in which execute hands jobs to its workers:
// the costliest first, so that the workers run out of work at about the
// same time instead of one finishing a long run alone while the others
// idle. Which run costs most is known only once it has run; a job's
// guess is its workload's simulated length times the clients and
// observers that work in it (workloadCost). Jobs of equal guesses keep
// their order. The order of the results does not change: execute returns
// them in the order of jobs.
func dispatchOrder(jobs []job) []int {
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(workloadCost(jobs[b]), workloadCost(jobs[a]))
	})
	return order
}

// workloadCost guesses what job j's run costs: its workload's simulated
// length times the clients and observers that work in it, with the
// defaults a scenario gets for those left unset (8 s, 3 clients). A run
// on the virtual clock costs CPU time in proportion to what its clients
// do (a cluster with no one working costs little), and a run on the real
// clock costs wall time in proportion to its length.
func workloadCost(j job) time.Duration {
	w := j.scenario.Workload
	d, clients := w.Duration.D(), w.Clients
	if d == 0 {
		d = 8 * time.Second
	}
	if clients == 0 {
		clients = 3
	}
	return d * time.Duration(clients+w.Observers)
}
