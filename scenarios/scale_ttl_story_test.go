package scenarios_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// haTTL is the lease TTL an HA manager's election fixes in its code.
const haTTL = 6 * time.Second

// loopElector is an HA manager's election as such managers are written: a
// lease TTL fixed at 6 s whatever it is asked for, and a main loop that
// wakes every TTL/3, so that a candidate campaigns only at its next wake-up.
// It is correct, and as slow to hand over as its TTL makes it.
type loopElector struct{ election.Elector }

func (l loopElector) Campaign(ctx context.Context, v string) (election.Leadership, error) {
	select {
	case <-time.After(haTTL / 3):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return l.Elector.Campaign(ctx, v)
}

var haElection = election.Recipe{Name: "ha-manager", Summary: "an HA manager's election: TTL fixed at 6 s, a loop every 2 s",
	New: func(cli *clientv3.Client, prefix string, _ election.Options) (election.Elector, error) {
		e, err := election.NewRechecked(cli, prefix, election.Options{TTL: haTTL})
		return loopElector{e}, err
	}}

// haContention is the election contention schedule for the HA manager:
// two candidates, each campaigning as the other resigns, and a liveness
// bound of 1.5 s, written for a TTL of 1 s.
func haContention(t *testing.T) scenarios.Scenario {
	t.Helper()
	ss := scenarios.ElectionSafety(haElection)
	i := slices.IndexFunc(ss, func(s scenarios.Scenario) bool { return strings.HasSuffix(s.Name, "/contention") })
	return ss[i]
}

func liveness(res *scenarios.Result) checker.Result {
	for _, c := range res.Checks {
		if c.Checker == checker.CheckerLiveness {
			return c
		}
	}
	return checker.Result{}
}

func ttlNotes(res *scenarios.Result) []string {
	return slices.DeleteFunc(slices.Clone(res.RecipeFaults), func(f string) bool { return !strings.Contains(f, "TTL") })
}

// Played at the manager's own TTL — what simrun run -ttl 6s does — the
// schedule stretches six times, the liveness bound with it, and the
// manager's 2 s hand-overs are judged live; nothing is said of the TTL,
// since the scenario's is the recipe's. Played as written, the judges
// take the 6 s the recipe was granted, the verdict says once that the
// TTLs differ, and the 1.5 s bound, written for a 1 s TTL, calls its
// hand-overs leaderless.
//
// Its two runs at a 6 s TTL are among the package's longest; the detector
// sees the same scaled run in TestObservedTTLTakesTheRecipes.
func TestHAManagerAtItsOwnTTL(t *testing.T) {
	raceLeavesOut(t, "TestObservedTTLTakesTheRecipes plays the same scaled run")
	s := haContention(t)
	scaled, err := s.WithTTL(haTTL)
	if err != nil {
		t.Fatal(err)
	}
	res, err := scenarios.Run(context.Background(), scaled, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l := liveness(res); l.Verdict != checker.VerdictOK {
		t.Errorf("at the recipe's TTL, liveness says %s: %s", l.Verdict, l.Summary)
	}
	if !res.Met {
		t.Errorf("at the recipe's TTL, not met: %s", res.Why)
	}
	if n := ttlNotes(res); len(n) != 0 {
		t.Errorf("at the recipe's TTL the run still speaks of TTLs: %q", n)
	}

	res, err = scenarios.Run(context.Background(), s, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "the recipe's leases were granted a TTL of 6s, not the scenario's 1s"
	if n := ttlNotes(res); len(n) != 1 || !strings.Contains(n[0], want) {
		t.Errorf("as written, the run's TTL sentences are %q; want one saying %q", n, want)
	}
	if l := liveness(res); l.Verdict != checker.VerdictViolation {
		t.Errorf("as written, liveness says %s (%s); want the leaderless stretches a 1.5 s bound makes of 2 s hand-overs", l.Verdict, l.Summary)
	}
}

// A scenario told to take the recipe's TTL (workload.observed_ttl) probes
// it, runs at it, and says so once.
func TestObservedTTLTakesTheRecipes(t *testing.T) {
	s := haContention(t)
	s.Workload.ObservedTTL = true
	res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Scenario.Workload.TTL.D(); got != haTTL {
		t.Errorf("the run's scenario has TTL %v, want the recipe's %v", got, haTTL)
	}
	want := "the workload took the recipe's TTL: a 20s probe saw its leases granted 6s, so the scenario, written for 1s, ran with its times and its judges' bounds scaled by 6/1"
	if n := ttlNotes(res); len(n) != 1 || n[0] != want {
		t.Errorf("TTL sentences %q; want only %q", n, want)
	}
	if !res.Met {
		t.Errorf("not met at the recipe's TTL: %s", res.Why)
	}
}

// A recipe that grants leases of several TTLs — one process 2 s, the
// others 3 s — gets one sentence naming them all, and the run is judged
// with the largest.
func TestSeveralTTLsOneSentence(t *testing.T) {
	var made atomic.Int32
	r := lock.Recipe{Name: "mixed-ttl", Summary: "a user's lock whose first process fixes a TTL of 2 s, the others 3 s",
		New: func(cli *clientv3.Client, name string, _ lock.Options) (lock.Locker, error) {
			ttl := 3 * time.Second
			if made.Add(1) == 1 {
				ttl = 2 * time.Second
			}
			return &leaselessLock{cli: cli, key: "user/locks/" + name, ttl: ttl}, nil
		}}
	ss := scenarios.LockSafety(r)
	s := ss[slices.IndexFunc(ss, func(s scenarios.Scenario) bool { return strings.HasSuffix(s.Name, "/crash-holder") })]
	res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "the recipe's leases were granted several TTLs (2s, 3s), and the scenario assumed 1s: the judges took the largest, 3s"
	if n := ttlNotes(res); len(n) != 1 || n[0] != want {
		t.Errorf("TTL sentences %q; want only %q", n, want)
	}
	for _, c := range res.Checks {
		if c.Verdict == checker.VerdictInvalid {
			t.Errorf("%s was not judged: %s %s", c.Checker, c.Verdict, c.Summary)
		}
	}
}
