package scenarios

import (
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
)

// The auth scenarios run correct recipes with etcd's authentication on:
// each client speaks as a user of its own that holds only the recipe's
// keys (Auth's defaults), and the tokens of the client that holds the
// lock, leads, or has just registered are ended mid-run (expire-token),
// then everyone's, again and again. clientv3 authenticates again on the
// request etcd refuses; what a recipe holds open across the expiry — the
// session's keep-alive stream, a waiter's watch, the resolver's watch —
// must go on working, and the recipe must stay as correct as it is
// without auth.

// authScheduleEnd ends the lock and election schedules: the everyone
// expiries stop at 7 s, and a client that first takes the lock or leads
// after 9 s is not waited for (its trigger does not fire), so that a turn
// of 4 s begun after the last expiry ends, and the next begins, before
// the run does — liveness is judged after the last fault.
const authScheduleEnd = 9 * time.Second

// authTokenTTL is the tokens' TTL in the auth scenarios: short enough that
// tokens also die of age during a run.
const authTokenTTL = 2 * time.Second

// authScenarios are the auth scenarios: etcd's Mutex and its lock service,
// its Election (rechecked) and its election service, and the keep-alive
// registrar, with simple tokens; etcd's Mutex with JWTs too.
func authScenarios() []Scenario {
	return []Scenario{
		authLock("mutex", "simple"),
		authLock("mutex", "jwt"),
		authLock("v3lock", "simple"),
		authElection("rechecked"),
		authElection("server"),
		authRegistrar("keepalive"),
	}
}

// authOn returns s with auth on, tokens of kind token and authTokenTTL,
// and the default users: one per client, limited to the recipe's keys.
func authOn(s Scenario, token string) Scenario {
	s.Cluster.Auth = &Auth{Token: cluster.TokenKind(token), TokenTTL: Duration(authTokenTTL)}
	return s
}

// expireEveryone expires every client's tokens every period from first
// until before end.
func expireEveryone(first, period, end time.Duration) []faults.Step {
	var out []faults.Step
	for at := first; at < end; at += period {
		out = append(out, faults.At(at, 0, faults.ExpireToken(faults.AllClients)))
	}
	return out
}

// expireOn fires expire-token at target(c) when each client c of c1, c2
// and c3 first does kind on key.
func expireOn(kind checker.Kind, key string, target func(client string) faults.Target) []faults.Trigger {
	var out []faults.Trigger
	for _, c := range []string{"c1", "c2", "c3"} {
		out = append(out, faults.On(faults.Match{Kind: kind, Client: c, Key: key}, 0, faults.ExpireToken(target(c))))
	}
	return out
}

// holderOf and leaderOf aim at whoever holds lock L or leads election E
// when the fault fires.
func holderOf(string) faults.Target { return faults.LockHolder("L") }
func leaderOf(string) faults.Target { return faults.ElectionLeader("E") }

// authLock: three clients take turns holding the lock for four TTLs,
// writing every half second; each holder's tokens are ended as it
// acquires, and every client's every 1.5 s. An expiry can cost a holder
// its lease: etcd refuses the renewals on the keep-alive stream the
// token opened, and clientv3 opens a new one, with a new token, only
// half a second after the old one failed — a lease of 1 s can run out
// meanwhile. So the run is judged as the standard mix judges a lock
// whose leases are revoked: by the guarded resource, the fencing tokens
// and liveness.
func authLock(recipe, token string) Scenario {
	s := Scenario{
		Name: fmt.Sprintf("lock/%s/expire-token-holder", recipe),
		Description: fmt.Sprintf("%s with auth on (%s tokens of %v): each client a user limited to the lock's keys; "+
			"the holder's tokens end as it acquires and everyone's every 1.5s until 7s; holds stay exclusive and the lock live", recipe, token, authTokenTTL),
		Cluster: Cluster{Members: 3},
		Workload: Workload{Family: FamilyLock, Recipe: recipe, Clients: 3, Hold: Duration(4 * time.Second), Writes: 8,
			Patience: Duration(10 * time.Second), Duration: Duration(14 * time.Second)},
		Faults: Faults{Timeline: &faults.Timeline{
			Steps:    expireEveryone(time.Second, 1500*time.Millisecond, 8*time.Second),
			Triggers: expireOn(checker.KindAcquire, "L", holderOf),
			End:      authScheduleEnd,
		}},
		Checkers: []Check{{Name: checker.CheckerMutualExclusion, ResourceOnly: true},
			{Name: checker.CheckerFencing}, {Name: checker.CheckerLiveness, Bound: Duration(5 * time.Second)}},
		Seed: 1,
	}
	if token == "jwt" {
		s.Name += "-jwt"
	}
	return authOn(s, token)
}

// authElection: three candidates, terms of four TTLs; each leader's tokens
// are ended as it wins, and every client's every 1.5 s; the observer
// watches all along. Judged by election safety, the term's fencing and
// liveness.
func authElection(recipe string) Scenario {
	s := Scenario{
		Name: fmt.Sprintf("election/%s/expire-token-leader", recipe),
		Description: fmt.Sprintf("%s with auth on (simple tokens of %v): each candidate and the observer a user limited to the election's keys; "+
			"the leader's tokens end as it wins and everyone's every 1.5s until 7s; one leader at a time, and always one soon", recipe, authTokenTTL),
		Cluster: Cluster{Members: 3},
		Workload: Workload{Family: FamilyElection, Recipe: recipe, Clients: 3, Hold: Duration(4 * time.Second),
			Patience: Duration(10 * time.Second), Duration: Duration(14 * time.Second)},
		Faults: Faults{Timeline: &faults.Timeline{
			Steps:    expireEveryone(time.Second, 1500*time.Millisecond, 8*time.Second),
			Triggers: expireOn(checker.KindCampaign, "E", leaderOf),
			End:      authScheduleEnd,
		}},
		Checkers: []Check{{Name: checker.CheckerElectionSafety}, {Name: checker.CheckerFencing}, {Name: checker.CheckerLiveness}},
		Seed:     1,
	}
	return authOn(s, "simple")
}

// authRegistrar: three backends register and keep their keys alive while
// a resolver watches; each backend's tokens are ended as it registers,
// and every client's every 1.5 s. Judged by convergence: the resolver
// ends with the registered set.
func authRegistrar(recipe string) Scenario {
	s := Scenario{
		Name: fmt.Sprintf("discovery/%s/expire-token-registrar", recipe),
		Description: fmt.Sprintf("%s with auth on (simple tokens of %v): each backend and the resolver a user limited to the service's keys; "+
			"each registrar's tokens end as it registers and everyone's every 1.5s until 7s; the resolver follows the registered set", recipe, authTokenTTL),
		Cluster:  Cluster{Members: 3},
		Workload: Workload{Family: FamilyDiscovery, Recipe: recipe, Resolver: "relisting", Clients: 3, Observers: 1, Duration: Duration(10 * time.Second)},
		Faults: Faults{Timeline: &faults.Timeline{
			Steps:    expireEveryone(time.Second, 1500*time.Millisecond, 7*time.Second),
			Triggers: expireOn(checker.KindRegister, "svc", faults.Client),
			End:      7 * time.Second,
		}},
		Checkers: []Check{{Name: checker.CheckerDiscoveryConvergence}},
		Seed:     1,
	}
	return authOn(s, "simple")
}
