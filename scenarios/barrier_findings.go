package scenarios

import "github.com/etcdsim/etcdsim/checker"

// compactedWatchPair returns the two scenarios of a barrier finding of
// our own, report id: "compacted-watch", etcd's recipe ("upstream"), in
// which barrier-safety finds an early pass, and "fixed", the recipe
// "checked", which passes; each on the schedule build makes for the
// recipe lookup finds. shows and fixed describe the two.
func compactedWatchPair[R any](id string, lookup func(string) (R, error), build func(R) Scenario, shows, fixed string) []Scenario {
	r := report(id)
	run := func(recipe string, expect checker.Expectation) Scenario {
		rr, err := lookup(recipe)
		if err != nil {
			panic(err) // both recipes are registered
		}
		s := build(rr)
		s.Expect = expect
		return s
	}
	return []Scenario{
		r.scenario(run("upstream", checker.Expectation{Checker: checker.CheckerBarrierSafety, Violation: checker.ViolationEarlyPass}),
			"compacted-watch", ShowsReport, shows),
		r.scenario(run("checked", checker.Expectation{}), "fixed", ShowsFix, fixed),
	}
}
