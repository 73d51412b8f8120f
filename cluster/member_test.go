package cluster

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"
)

// The member tests run on both clocks (eachClock): a member is an embedded
// etcd on the real clock and an etcdserver built directly on the virtual
// one, and Kill, Stop and Restart take each apart and start it again in
// their own way. The real clock is here for that implementation, which
// Config.Clock: ClockReal and simrun -clock real run; its waits (testCtx,
// eventually, put, get) stretch with the machine's load (patience.Scale).

func TestKillLeaderThenRestartRejoins(t *testing.T) { eachClock(t, killLeaderThenRestartRejoins) }

func killLeaderThenRestartRejoins(t *testing.T, clock Clock) {
	c := New(t, Config{Clock: clock})
	cli := client(t, c, "c1")
	old := leader(t, c)
	oldTerm := old.Term()
	require.NoError(t, old.Kill())
	if old.Running() || old.IsLeader() || old.Etcd() != nil || old.Server() != nil {
		t.Errorf("killed member still reports running=%v leader=%v", old.Running(), old.IsLeader())
	}
	if err := old.Kill(); !errors.Is(err, ErrNotRunning) {
		t.Errorf("second Kill returned %v, want ErrNotRunning", err)
	}
	if err := old.Stop(); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Stop of a killed member returned %v, want ErrNotRunning", err)
	}
	next := leader(t, c)
	if next == old {
		t.Fatalf("after the kill, %s still leads", old.Name())
	}
	eventually(t, "the new leader's term passes the old one", func() bool {
		return next.Term() > oldTerm
	})
	put(t, cli, "while-down", "x")
	require.NoError(t, old.Restart(testCtx(t)))
	if err := old.Restart(testCtx(t)); !errors.Is(err, ErrRunning) {
		t.Errorf("Restart of a running member returned %v, want ErrRunning", err)
	}
	require.NoError(t, c.WaitHealthy(testCtx(t)))
	direct := client(t, c, "direct", old.Name())
	if got := get(t, direct, "while-down"); got != "x" {
		t.Errorf("restarted member reads %q for a write made while it was down", got)
	}
}

func TestStopHandsLeadershipOver(t *testing.T) { eachClock(t, stopHandsLeadershipOver) }

func stopHandsLeadershipOver(t *testing.T, clock Clock) {
	c := New(t, Config{Clock: clock})
	cli := client(t, c, "c1")
	put(t, cli, "k", "v")
	old := leader(t, c)
	require.NoError(t, old.Stop())
	next := leader(t, c)
	if next == old {
		t.Fatal("the stopped member still leads")
	}
	require.NoError(t, old.Restart(testCtx(t)))
	if got := get(t, client(t, c, "direct", old.Name()), "k"); got != "v" {
		t.Errorf("restarted member lost data: k=%q", got)
	}
}

func TestMoveLeader(t *testing.T) { eachClock(t, moveLeader) }

func moveLeader(t *testing.T, clock Clock) {
	c := New(t, Config{Clock: clock})
	lead := leader(t, c)
	to := followers(c, lead)[1]
	require.NoError(t, c.MoveLeader(testCtx(t), to.Name()))
	if got := leader(t, c); got != to {
		t.Errorf("leader is %s after moving it to %s", got.Name(), to.Name())
	}
	if err := c.MoveLeader(testCtx(t), "m8"); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("MoveLeader to m8 returned %v, want ErrUnknownNode", err)
	}
	lead = leader(t, c)
	down := followers(c, lead)[0]
	require.NoError(t, down.Kill())
	if err := c.MoveLeader(testCtx(t), down.Name()); !errors.Is(err, ErrNotRunning) {
		t.Errorf("MoveLeader to a killed member returned %v, want ErrNotRunning", err)
	}
}

// A member joins and leaves alike on both clocks: on the virtual one, the
// join's bootstrap requests cross from real sockets into the in-memory
// network (joinBridge).
func TestAddAndRemoveMembers(t *testing.T) { eachClock(t, addAndRemove) }

func addAndRemove(t *testing.T, clock Clock) {
	cfg := Config{Clock: clock}
	if clock == ClockReal {
		cfg = loadProof(cfg) // a join and a removal do not depend on raft's timing
	}
	c := New(t, cfg)
	cli := client(t, c, "c1")
	put(t, cli, "k", "v")
	m, err := c.AddMember(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "m3" || len(c.Members()) != 4 {
		t.Fatalf("added %s, cluster has %d members; want m3 and 4", m.Name(), len(c.Members()))
	}
	if eps := cli.Endpoints(); len(eps) != 4 {
		t.Errorf("c1 dials %v after the add; want a link to each of 4 members", eps)
	}
	if got := get(t, client(t, c, "new", "m3"), "k"); got != "v" {
		t.Errorf("new member reads k=%q, want v", got)
	}
	require.NoError(t, c.RemoveMember(testCtx(t), "m0"))
	if len(c.Members()) != 3 {
		t.Errorf("after removing m0, %d members", len(c.Members()))
	}
	if _, err := c.Member("m0"); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("Member(m0) after removal: %v", err)
	}
	require.NoError(t, c.WaitHealthy(testCtx(t)))
	put(t, cli, "k", "after-replace") // c1 follows the membership
	if got := get(t, cli, "k"); got != "after-replace" {
		t.Errorf("k=%q", got)
	}
}

func TestDurableClusterKeepsAcknowledgedWritesAcrossKill(t *testing.T) {
	eachClock(t, durableClusterKeepsAcknowledgedWritesAcrossKill)
}

func durableClusterKeepsAcknowledgedWritesAcrossKill(t *testing.T, clock Clock) {
	c := New(t, Config{Clock: clock, Durable: true})
	cli := client(t, c, "c1")
	put(t, cli, "k", "durable")
	for _, m := range c.Members() {
		require.NoError(t, m.Kill())
	}
	var g errgroup.Group
	for _, m := range c.Members() {
		g.Go(func() error { return m.Restart(testCtx(t)) }) // all at once: each needs a quorum to be ready
	}
	require.NoError(t, g.Wait())
	require.NoError(t, c.WaitHealthy(testCtx(t)))
	if got := get(t, cli, "k"); got != "durable" {
		t.Errorf("after killing every member, k=%q", got)
	}
}
