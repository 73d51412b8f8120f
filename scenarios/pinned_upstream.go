package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// The pinned-member blackhole, as the field meets it: a process's
// session keeps its lease alive on clientv3's KeepAlive stream, which
// stays on the connection it was opened on; the member at its other end
// goes dark — a machine gone, a network that drops its packets — with the
// connection left open, no RST ever coming, while the other members keep
// a quorum. clientv3's default sends no gRPC pings, so nothing ends that
// connection: the renewals wait on it, and the session ends when its TTL
// runs out. With pings, gRPC closes the connection after time + timeout,
// and the keepalive stream moves to a member that stands.

// pinnedTTL is the sessions' TTL: milvus's default session TTL today, and
// long enough for gRPC's fastest pings (10s, and a 2s timeout) to move
// the stream before the lease expires, with a renewal period (TTL/3) to
// spare.
const pinnedTTL = 30 * time.Second

// pinnedPings are the fix's gRPC keepalive: ping after 10s without a
// byte from the member (gRPC's floor), give up 2s later.
var pinnedPings = [2]Duration{Duration(10 * time.Second), Duration(2 * time.Second)}

// isolatePinned blackholes, from 2s on and for 36s, the member c1's
// keepalive stream is on: c1 has taken its lock or won its election by
// then, and its session's first renewal has been answered (before that,
// clientv3 gives a lease 5s, not its TTL).
func isolatePinned() *faults.Timeline {
	return &faults.Timeline{Steps: []faults.Step{faults.At(2*time.Second, 36*time.Second, faults.Isolate(faults.Pinned("c1")))}}
}

// pinnedScenario is one process of family and recipe that takes its lock
// or election once and keeps it for the whole 40s run, while its pinned
// member is dark from 2s to 38s; judged by session-kept and by the
// family's safety checker. pings turns the fix's gRPC keepalive on.
func pinnedScenario(family, recipe string, safety checker.Name, pings bool, expect checker.Expectation) Scenario {
	s := Scenario{
		Cluster: Cluster{Members: 3, Latency: Duration(time.Millisecond)},
		Workload: Workload{Family: family, Recipe: recipe, Clients: 1, TTL: Duration(pinnedTTL),
			Hold: Duration(2 * time.Minute), Duration: Duration(40 * time.Second)},
		Faults:   Faults{Timeline: isolatePinned()},
		Checkers: []Check{{Name: checker.CheckerSessionKept}, {Name: safety}},
		Expect:   expect,
		Seed:     1,
	}
	if pings {
		s.Cluster.ClientKeepAliveTime, s.Cluster.ClientKeepAliveTimeout = pinnedPings[0], pinnedPings[1]
	}
	return s
}

// upstream29345: etcd's Mutex and Election, each on a session of
// clientv3's own, lose it when the member its keepalive stream is on goes
// dark, though the two others keep a quorum; with the client's gRPC
// keepalive on, the same runs keep it.
func upstream29345() []Scenario {
	r := report("milvus-29345")
	lost := checker.Expectation{Checker: checker.CheckerSessionKept, Violation: checker.ViolationLostWithQuorum}
	var out []Scenario
	for _, c := range []struct {
		family, recipe, name string
		safety               checker.Name
		who, kept            string
	}{
		{FamilyLock, "session-mutex", "mutex", checker.CheckerMutualExclusion,
			"a holder on concurrency.Mutex", "the holder keeps its session"},
		{FamilyElection, "session-election", "election", checker.CheckerElectionSafety,
			"a leader on concurrency.Election", "the leader keeps its session and its office"},
	} {
		out = append(out,
			r.scenario(pinnedScenario(c.family, c.recipe, c.safety, false, lost), c.name+"-isolate-pinned", ShowsReport,
				c.who+" loses its session 30s after the member its keepalive stream is on went dark, "+
					"while the other two members stand and answer it"),
			r.scenario(pinnedScenario(c.family, c.recipe, c.safety, true, checker.Expectation{}), c.name+"-isolate-pinned-fixed", ShowsFix,
				"the same with the client's gRPC keepalive at 10s/2s: gRPC closes the dead connection, the keepalive stream "+
					"moves, and "+c.kept))
	}
	return out
}
