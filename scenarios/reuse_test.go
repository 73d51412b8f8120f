package scenarios_test

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/barrier"
	"github.com/etcdsim/etcdsim/recipes/queue"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/google/go-cmp/cmp"
)

// Seeds copies each scenario once per seed, scenario by scenario.
func TestSeeds(t *testing.T) {
	my := lock.Recipe{Name: "my-lock", Summary: "ours", New: mustLockRecipe(t, "fenced").New}
	list := scenarios.LockSafety(my)[:2]
	var got []string
	for _, s := range scenarios.Seeds(7, 3, list...) {
		got = append(got, s.Name+" "+s.Seed.String())
		if s.Workload.Lock == nil || s.Workload.Lock.Name != "my-lock" {
			t.Errorf("%s seed %s lost its recipe value", s.Name, s.Seed)
		}
	}
	want := []string{
		"lock/my-lock/standard-mix 7", "lock/my-lock/standard-mix 8", "lock/my-lock/standard-mix 9",
		"lock/my-lock/pause-holder 7", "lock/my-lock/pause-holder 8", "lock/my-lock/pause-holder 9",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Seeds(7, 3, …) (-want +got):\n%s", diff)
	}
	if n := len(scenarios.Seeds(1, 0, list...)); n != 0 {
		t.Errorf("Seeds(1, 0, …) returned %d scenarios, want none", n)
	}
}

// A user's recipe placed in a registered scenario — a pitfall's — runs as
// a scenario of its own: its own name, its own expectation (a pass, not
// the pitfall's violation) and a description that says whose schedule it
// runs on. Setting the recipe value by hand instead is refused, with the
// way out.
func TestWithRecipe(t *testing.T) {
	mine := lock.Recipe{Name: "mine", Summary: "ours", New: mustLockRecipe(t, "fenced").New}
	pit, err := scenarios.Lookup("lock/setnx/crash-holder")
	if err != nil {
		t.Fatal(err)
	}
	s := pit.WithLock(mine)
	if s.Name != "lock/mine/crash-holder" || !s.Expect.Pass() || s.Workload.Recipe != "mine" ||
		!strings.Contains(s.Description, "lock/setnx/crash-holder") {
		t.Errorf("WithLock: name %q, expect %v, recipe %q, description %q; want lock/mine/crash-holder, pass, mine, naming the pitfall",
			s.Name, s.Expect, s.Workload.Recipe, s.Description)
	}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
	if pit.Workload.Lock != nil || pit.Name != "lock/setnx/crash-holder" {
		t.Errorf("WithLock changed the scenario it was called on: %s", pit.Name)
	}

	broken, err := lock.Lookup("missed-wakeup")
	if err != nil {
		t.Fatal(err)
	}
	if got := pit.WithLock(broken).Expect; got != broken.Expect {
		t.Errorf("a broken recipe keeps its own expectation: got %v, want %v", got, broken.Expect)
	}

	byHand := pit
	byHand.Workload.Lock = &mine
	if err := byHand.Validate(); err == nil || !strings.Contains(err.Error(), "WithLock") {
		t.Errorf("a recipe value set by hand under another recipe's name: %v, want an error naming WithLock", err)
	}

	res := discovery.ResolverRecipe{Name: "my-resolver", Summary: "ours", New: discovery.NewRelisting}
	d, err := scenarios.Lookup("discovery/debounced/reregister")
	if err != nil {
		t.Fatal(err)
	}
	d = d.WithResolver(res)
	if d.Name != "discovery/my-resolver/reregister" || !d.Expect.Pass() || d.Workload.Resolver != "my-resolver" || d.Workload.Recipe != "keepalive" {
		t.Errorf("WithResolver: name %q, expect %v, resolver %q, registrar %q", d.Name, d.Expect, d.Workload.Resolver, d.Workload.Recipe)
	}
	if err := d.Validate(); err != nil {
		t.Error(err)
	}

	up, err := scenarios.Lookup("upstream/etcd-22082/unlock-retry")
	if err != nil {
		t.Fatal(err)
	}
	if got := up.WithLock(mine).Name; got != "lock/mine/etcd-22082-unlock-retry" {
		t.Errorf("WithLock on an upstream report's scenario: name %q, want lock/mine/etcd-22082-unlock-retry, keeping the report's id", got)
	}

	other := pit.WithElection(mustElectionRecipe(t, "rechecked"))
	if err := other.Validate(); err == nil || !strings.Contains(err.Error(), "family is lock") {
		t.Errorf("an election recipe on a lock scenario: %v, want an error naming the family", err)
	}
}

func mustElectionRecipe(t *testing.T, name string) election.Recipe {
	t.Helper()
	r, err := election.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The shelf's families take a user's recipe the same way: each With puts
// the recipe on a registered pitfall's schedule under the recipe's own
// name and expectation, and a recipe of another family is refused.
func TestWithShelfRecipe(t *testing.T) {
	rw, err := rwmutex.Lookup("checked")
	if err != nil {
		t.Fatal(err)
	}
	q, err := queue.Lookup("claimed")
	if err != nil {
		t.Fatal(err)
	}
	b, err := barrier.Lookup("checked")
	if err != nil {
		t.Fatal(err)
	}
	pb, err := barrier.LookupPlain("checked")
	if err != nil {
		t.Fatal(err)
	}
	rw.Name, q.Name, b.Name, pb.Name = "my-rw", "my-queue", "my-barrier", "my-plain"
	for _, tt := range []struct {
		pitfall, want string
		with          func(scenarios.Scenario) scenarios.Scenario
	}{
		{"rwmutex/reader-ignores-done/isolate-reader", "rwmutex/my-rw/isolate-reader", func(s scenarios.Scenario) scenarios.Scenario { return s.WithRWMutex(rw) }},
		{"queue/at-most-once/lost-claim", "queue/my-queue/lost-claim", func(s scenarios.Scenario) scenarios.Scenario { return s.WithQueue(q) }},
		{"barrier/short-count/rounds", "barrier/my-barrier/rounds", func(s scenarios.Scenario) scenarios.Scenario { return s.WithBarrier(b) }},
		{"plain-barrier/unpinned-watch/slow-waiter", "plain-barrier/my-plain/slow-waiter", func(s scenarios.Scenario) scenarios.Scenario { return s.WithPlainBarrier(pb) }},
	} {
		pit, err := scenarios.Lookup(tt.pitfall)
		if err != nil {
			t.Fatal(err)
		}
		s := tt.with(pit)
		if s.Name != tt.want || !s.Expect.Pass() {
			t.Errorf("%s: name %q, expect %v; want %s, pass", tt.pitfall, s.Name, s.Expect, tt.want)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
	lockPit, err := scenarios.Lookup("lock/setnx/crash-holder")
	if err != nil {
		t.Fatal(err)
	}
	if err := lockPit.WithQueue(q).Validate(); err == nil || !strings.Contains(err.Error(), "family is lock") {
		t.Errorf("a queue recipe on a lock scenario: %v, want an error naming the family", err)
	}
}
