package scenarios_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// A lock whose lease TTL is fixed in its code, as a library's often is,
// is judged by the TTL it was granted, not the scenario's: its crashed
// holder's lease takes 5 s to go, which the scenario's 1 s would call
// starvation. The run says once that the two differ, naming both, and
// the same history judged with the scenario's TTL shows what it would
// have said instead.
func TestObservedTTLJudgesAFixedTTL(t *testing.T) {
	const fixed = 5 * time.Second
	r := lock.Recipe{Name: "fixed-ttl", Summary: "a user's lock whose lease TTL is fixed at 5 s",
		New: func(cli *clientv3.Client, name string, _ lock.Options) (lock.Locker, error) {
			return &leaselessLock{cli: cli, key: "user/locks/" + name, ttl: fixed}, nil
		}}
	i := slices.IndexFunc(scenarios.LockSafety(r), func(s scenarios.Scenario) bool { return strings.HasSuffix(s.Name, "/crash-holder") })
	s := scenarios.LockSafety(r)[i]
	s.Workload.Duration = scenarios.Duration(12 * time.Second)
	res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "the recipe's leases were granted a TTL of 5s, not the scenario's 1s: the judges took 5s"
	n := 0
	for _, f := range res.RecipeFaults {
		if strings.Contains(f, want) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the run said %d times that the TTLs differ, want once: %q", n, res.RecipeFaults)
	}
	if !res.Met {
		t.Errorf("not met with the recipe's own TTL: %s", res.Why)
	}
	h := res.History()
	if got := checker.ObservedTTLs(h); !slices.Equal(got, []time.Duration{fixed}) {
		t.Errorf("ObservedTTLs = %v, want [%v]", got, fixed)
	}
	// What the judges said when they took the scenario's TTL.
	h.Calls = slices.DeleteFunc(slices.Clone(h.Calls), func(op checker.Operation) bool { return op.Kind == checker.KindLeaseGrant })
	assumed := checker.RunJudge(checker.CheckerLiveness, h, checker.JudgeOptions{TTL: time.Second})
	if assumed.Verdict != checker.VerdictViolation {
		t.Errorf("with the scenario's TTL, liveness says %s (%s); want the starvation the assumed TTL makes of a 5 s lease", assumed.Verdict, assumed.Summary)
	}
}
