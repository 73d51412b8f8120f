package scenarios

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/checker"
)

// runObservedTTL runs s at the TTL its recipe grants: a probe first — s's
// workload on a cluster of its own, for its whole duration (a recipe may
// open its first session late: an HA manager campaigns at its loop's first
// wake-up), with no faults and nothing written — reads the TTLs of the leases the recipe was granted
// (checker.ObservedTTLs), and s is then run at the largest of them
// (WithTTL), with a sentence in Result.RecipeFaults that says so. The
// result's scenario is the one that ran, at the recipe's TTL, so that a
// replay runs it again without a probe. A probe that sees no lease granted
// leaves s at its own TTL and says so.
//
// The grant is only seen once the recipe runs, and the schedule and the
// workload's times are fixed before it does: hence a probe, rather than a
// schedule that stretches as the run goes.
func runObservedTTL(ctx context.Context, s Scenario, opts Options) (*Result, error) {
	s.Workload.ObservedTTL = false
	probe := s
	probe.Faults = Faults{}
	probe.Expect = checker.Expectation{}
	res, err := run(ctx, probe, Options{OnFrozen: opts.OnFrozen, last: opts.last})
	if err != nil {
		return nil, fmt.Errorf("scenarios: %s: probing the TTL the recipe grants: %w", s.Name, err)
	}
	from := s.Workload.TTL.D()
	ttls := checker.ObservedTTLs(res.history)
	switch {
	case len(ttls) == 0:
		opts.ttlNote = fmt.Sprintf("the workload was to take the recipe's TTL, but a %v probe saw it granted no lease: the run kept the scenario's %v",
			probe.Workload.Duration, from)
	case ttls[len(ttls)-1] != from:
		ttl := ttls[len(ttls)-1]
		scaled, err := s.WithTTL(ttl)
		if err != nil {
			return nil, fmt.Errorf("scenarios: %s: taking the recipe's TTL: %w", s.Name, err)
		}
		several := ""
		if len(ttls) > 1 {
			names := make([]string, len(ttls))
			for i, t := range ttls {
				names[i] = t.String()
			}
			several = fmt.Sprintf(" (it granted several, %s: the largest was taken)", strings.Join(names, ", "))
		}
		opts.ttlNote = fmt.Sprintf("the workload took the recipe's TTL: a %v probe saw its leases granted %v%s, so the scenario, written for %v, ran with its times and its judges' bounds scaled by %d/%d",
			probe.Workload.Duration, ttl, several, from, ttl/time.Second, from/time.Second)
		s = scaled
	}
	return run(ctx, s, opts)
}
