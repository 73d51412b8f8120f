package faults

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
)

// Target names whom a fault hits by role. It is resolved to member and
// client names when the fault fires, from the cluster's state at that
// moment: Kill(Leader) kills whoever leads then, not whoever led when the
// schedule was written.
//
// The zero Target is not valid; use the variables and constructors below.
type Target struct {
	kind targetKind
	arg  string // member name, client name, lock or election
}

type targetKind uint8

const (
	noTarget targetKind = iota
	leaderTarget
	followerTarget
	minorityTarget
	majorityTarget
	memberTarget
	allMembersTarget
	clientTarget
	allClientsTarget
	lockHolderTarget
	electionLeaderTarget
	pinnedTarget
	keyTarget
	prefixTarget
	userTarget
)

var (
	// Leader is the member a quorum agrees leads. Resolving it waits (up
	// to the Env's timeout) for such a leader.
	Leader = Target{kind: leaderTarget}
	// Follower is one running member that does not lead, chosen with the
	// schedule's random source.
	Follower = Target{kind: followerTarget}
	// Minority is (n-1)/2 of the n members, chosen with the schedule's
	// random source: 1 of 3, 2 of 5.
	Minority = Target{kind: minorityTarget}
	// Majority is n/2+1 of the n members, chosen with the schedule's
	// random source: 2 of 3, 3 of 5.
	Majority = Target{kind: majorityTarget}
	// AllMembers is every member of the cluster.
	AllMembers = Target{kind: allMembersTarget}
	// AllClients is every named client of the cluster.
	AllClients = Target{kind: allClientsTarget}
)

// Member is the member called "m<i>", the cluster's name for the i-th
// member it created. A member that was removed stays removed: Member(2)
// after replacing m2 is an error, the replacement has a new name.
func Member(i int) Target { return Target{kind: memberTarget, arg: fmt.Sprintf("m%d", i)} }

// Client is the named client of the cluster (see cluster.Cluster.Client).
func Client(name string) Target { return Target{kind: clientTarget, arg: name} }

// LockHolder is the client that holds the lock called lock when the fault
// fires, as the recorded operations say (see Env.LockHolder).
func LockHolder(lock string) Target { return Target{kind: lockHolderTarget, arg: lock} }

// ElectionLeader is the client elected in the election called election
// when the fault fires, as the recorded operations say (see
// Env.ElectionLeader).
func ElectionLeader(election string) Target {
	return Target{kind: electionLeaderTarget, arg: election}
}

// Pinned is the member the named client is pinned to when the fault
// fires: the one whose connection carries the client's lease keepalive
// stream (a Session's), or failing that its watch, or the only member it
// links to (see cluster.Cluster.PinnedMember). clientv3 spreads unary
// requests over every member but keeps each stream on one connection, so
// losing that member stops the session's renewals while the client still
// reaches the others. Resolving it waits (up to the Env's timeout) for
// such a stream.
func Pinned(client string) Target { return Target{kind: pinnedTarget, arg: client} }

// Key is one etcd key, for the faults that write as a client outside the
// recipe would (Delete, Put). It is no node: it resolves to itself,
// written "key:<k>".
func Key(k string) Target { return Target{kind: keyTarget, arg: k} }

// Prefix is every etcd key that begins with p, for Delete; written
// "prefix:<p>".
func Prefix(p string) Target { return Target{kind: prefixTarget, arg: p} }

// User is an etcd user of a cluster with auth on, by name — root, the
// harness's, included — for ExpireToken alone: it names whose tokens end,
// not a node.
func User(name string) Target { return Target{kind: userTarget, arg: name} }

// String names the target in the form ParseTarget reads, one token for
// the role and one for the name it needs: "leader", "m2", "all-members",
// "client c1", "lock-holder L", "election-leader E".
func (t Target) String() string {
	switch t.kind {
	case leaderTarget:
		return "leader"
	case followerTarget:
		return "follower"
	case minorityTarget:
		return "minority"
	case majorityTarget:
		return "majority"
	case memberTarget:
		return t.arg
	case allMembersTarget:
		return "all-members"
	case clientTarget:
		return "client " + t.arg
	case allClientsTarget:
		return "all-clients"
	case lockHolderTarget:
		return "lock-holder " + t.arg
	case electionLeaderTarget:
		return "election-leader " + t.arg
	case pinnedTarget:
		return "pinned " + t.arg
	case keyTarget:
		return "key:" + t.arg
	case prefixTarget:
		return "prefix:" + t.arg
	case userTarget:
		return "user " + t.arg
	}
	return "no target"
}

// onMembers reports whether the target resolves to members (as opposed to
// clients).
func (t Target) onMembers() bool {
	switch t.kind {
	case leaderTarget, followerTarget, minorityTarget, majorityTarget, memberTarget, allMembersTarget, pinnedTarget:
		return true
	}
	return false
}

// onKeys reports whether the target names etcd keys rather than nodes.
func (t Target) onKeys() bool { return t.kind == keyTarget || t.kind == prefixTarget }

// size is how many nodes the target resolves to in a cluster of shape s,
// or -1 if that depends on the workload.
func (t Target) size(s shape) int {
	n := len(s.members)
	switch t.kind {
	case leaderTarget, followerTarget, memberTarget, clientTarget, lockHolderTarget, electionLeaderTarget, pinnedTarget,
		keyTarget, prefixTarget, userTarget:
		return 1
	case minorityTarget:
		return (n - 1) / 2
	case majorityTarget:
		return n/2 + 1
	case allMembersTarget:
		return n
	case allClientsTarget:
		return len(s.clients)
	}
	return -1
}

// shape is what validation knows of a cluster before a run: its members
// and clients, by name, in the cluster's order.
type shape struct {
	members []string
	clients []string
}

// check reports why the target cannot be resolved in a cluster of shape s.
func (t Target) check(s shape) error {
	n := len(s.members)
	switch t.kind {
	case noTarget:
		return fmt.Errorf("no target (use a Target such as Leader or Client(\"c1\"))")
	case followerTarget:
		if n < 2 {
			return fmt.Errorf("a %d-member cluster has no follower", n)
		}
	case minorityTarget:
		if n < 3 {
			return fmt.Errorf("a minority of a %d-member cluster is empty", n)
		}
	case memberTarget:
		if !slices.Contains(s.members, t.arg) {
			return fmt.Errorf("no member %s (members: %v)", t.arg, s.members)
		}
	case clientTarget, pinnedTarget:
		if !slices.Contains(s.clients, t.arg) {
			return fmt.Errorf("no client %q (clients: %v); create it before the schedule runs", t.arg, s.clients)
		}
	case allClientsTarget:
		if len(s.clients) == 0 {
			return fmt.Errorf("the cluster has no clients yet; create them before the schedule runs")
		}
	case lockHolderTarget, electionLeaderTarget, userTarget:
		if t.arg == "" {
			return fmt.Errorf("%v: empty name", t)
		}
	case keyTarget, prefixTarget:
		if t.arg == "" {
			return fmt.Errorf("%v: empty key; a key of etcd has at least one byte (to aim at every key, no fault of this package will)", t)
		}
	}
	return nil
}

// resolve returns the names the target stands for now, in the cluster's
// order. Random choices come from rng only.
func (t Target) resolve(ctx context.Context, e *Env, rng *rand.Rand) ([]string, error) {
	s := e.shape()
	if err := t.check(s); err != nil {
		return nil, err
	}
	switch t.kind {
	case leaderTarget:
		lead, err := e.leader(ctx)
		if err != nil {
			return nil, err
		}
		return []string{lead}, nil
	case followerTarget:
		lead, err := e.leader(ctx)
		if err != nil {
			return nil, err
		}
		var followers []string
		for _, m := range e.c.Members() {
			if m.Name() != lead && m.Running() {
				followers = append(followers, m.Name())
			}
		}
		if len(followers) == 0 {
			return nil, fmt.Errorf("no running follower (leader %s)", lead)
		}
		return []string{followers[rng.IntN(len(followers))]}, nil
	case minorityTarget, majorityTarget:
		return pick(rng, s.members, t.size(s)), nil
	case memberTarget:
		return []string{t.arg}, nil
	case allMembersTarget:
		return s.members, nil
	case clientTarget:
		return []string{t.arg}, nil
	case allClientsTarget:
		return s.clients, nil
	case lockHolderTarget:
		cl, ok := e.LockHolder(t.arg)
		if !ok {
			return nil, fmt.Errorf("nobody holds lock %q now", t.arg)
		}
		return []string{cl}, nil
	case pinnedTarget:
		return e.pinned(ctx, t.arg)
	case keyTarget, prefixTarget:
		return []string{t.String()}, nil
	case userTarget:
		return []string{t.arg}, nil
	case electionLeaderTarget:
		cl, ok := e.ElectionLeader(t.arg)
		if !ok {
			return nil, fmt.Errorf("nobody leads election %q now", t.arg)
		}
		return []string{cl}, nil
	}
	return nil, fmt.Errorf("unknown target kind %d", t.kind)
}

// pinned waits, up to ctx's end, until client is pinned to a member: a
// session that has just started opens its keepalive stream a moment
// later.
func (e *Env) pinned(ctx context.Context, client string) ([]string, error) {
	for {
		m, err := e.c.PinnedMember(client)
		switch {
		case err == nil:
			return []string{m}, nil
		case !errors.Is(err, cluster.ErrNotPinned):
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// pick chooses k of names with rng and returns them in their original
// order.
func pick(rng *rand.Rand, names []string, k int) []string {
	idx := rng.Perm(len(names))[:k]
	slices.Sort(idx)
	out := make([]string, k)
	for i, j := range idx {
		out[i] = names[j]
	}
	return out
}
