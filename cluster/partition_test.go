package cluster

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"

	"github.com/etcdsim/etcdsim/internal/bubble"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// The partition tests run on both clocks (eachClock): a partition cuts
// member→member links, whose peer proxy learns which member dialed from
// the peer's TLS certificate on the real clock and from the in-memory
// network on the virtual one, so a cut that holds on one clock may leak on
// the other. The real clock is here for that path, which Config.Clock:
// ClockReal and simrun -clock real run; its waits stretch with the
// machine's load (testCtx, eventually, patience.Scale), while a request
// that must fail keeps a short deadline, which bounds only how long the
// test waits to see it fail.

// A client connected only to a follower that is cut off from the leader
// keeps a 1 s lease alive with KeepAlive. The follower forwards every renewal to the leader with a POST
// to /leases, which carries no sender header — a partition that cuts only
// raft messages lets it through and the lease lives forever. Ours must not.
func TestPartitionStopsLeaseKeepAliveForwarding(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(c *Cluster, follower, lead string) error
	}{
		{"both ways", func(c *Cluster, f, l string) error { return c.SetLinks(f, l, Blackholed()) }},
		// The follower still hears the leader's heartbeats, so it still
		// knows whom to forward renewals to.
		{"follower to leader only", func(c *Cluster, f, l string) error { return c.SetLink(f, l, Blackholed()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachClock(t, func(t *testing.T, clock Clock) {
				c := New(t, Config{Clock: clock})
				lead := leader(t, c)
				follower := followers(c, lead)[0]
				cut := func() {
					if err := tc.cut(c, follower.Name(), lead.Name()); err != nil {
						t.Fatal(err)
					}
				}
				expired, after := keepAliveThroughCutFollower(t, c, lead, follower, cut)
				if !expired {
					t.Fatalf("lease still alive %v after the cut: the partition leaks lease renewals", after)
				}
				// Expiry shows once the leader's lessor revokes the lease; it
				// looks for expired leases every 500 ms.
				t.Logf("lease gone %v after the cut (TTL 1s; no renewal sent after it was acknowledged)", after.Round(time.Millisecond))
			})
		})
	}
}

// keepAliveThroughCutFollower keeps a 1 s lease alive through a client
// linked only to follower, applies cut, and reports whether the lease
// expired on the leader's side within 5 s (stretched with the machine's
// load on the real clock, patience.Scale). It fails the test if a renewal
// the client sent after the cut was acknowledged: a renewal that crossed
// it.
func keepAliveThroughCutFollower(t *testing.T, c *Cluster, lead, follower *Member, cut func()) (bool, time.Duration) {
	t.Helper()
	renewals := newRenewalLog()
	cli, err := c.NewClient("f", ClientConfig{
		Members: []string{follower.Name()},
		Configure: func(cfg *clientv3.Config) {
			cfg.DialOptions = append(cfg.DialOptions, grpc.WithChainStreamInterceptor(renewals.intercept))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	observer := client(t, c, "obs", lead.Name())
	ctx := testCtx(t)
	lease, err := cli.Grant(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	kctx, stopKeepAlive := context.WithCancel(ctx)
	acks, err := cli.KeepAlive(kctx, lease.ID)
	if err != nil {
		t.Fatal(err)
	}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for range acks {
		}
	}()
	defer func() { stopKeepAlive(); <-drained }()
	ttl := func() int64 {
		resp, err := observer.TimeToLive(ctx, lease.ID)
		if err != nil {
			t.Fatalf("TimeToLive on the majority side: %v", err)
		}
		return resp.TTL
	}
	// Healthy: renewals forwarded through the follower keep it alive well
	// past its TTL.
	time.Sleep(1500 * time.Millisecond)
	if got := ttl(); got < 0 { // -1 is expired; 0 is alive with under a second left
		t.Fatalf("lease expired while healthy (TTL %d): KeepAlive through the follower does not work", got)
	}
	cut()
	renewals.markCut()
	start := time.Now()
	expired := false
	for !expired && time.Since(start) < patience.Scale(5*time.Second) {
		if expired = ttl() == -1; !expired {
			time.Sleep(10 * time.Millisecond)
		}
	}
	after := time.Since(start)
	if kctx.Err() != nil {
		t.Fatal("the keepalive stopped by itself: the test no longer proves a cut")
	}
	// Proving that no renewal crossed needs one that tried. The client's
	// keep-alive sends one every 500ms until its own deadline, a TTL after
	// the last ack; on a slow machine that deadline may pass first, and it
	// then sends no more. So if none was sent, send one by hand: through
	// the same interceptor, on a stream of its own.
	select {
	case <-renewals.sentAfterCut:
	case <-time.After(time.Second):
		octx, cancel := context.WithTimeout(ctx, patience.Scale(2*time.Second))
		_, err := cli.KeepAliveOnce(octx, lease.ID)
		cancel()
		t.Logf("the client's keep-alive had stopped; a renewal sent by hand after the cut: %v", err)
	}
	select {
	case <-renewals.sentAfterCut:
	case <-ctx.Done():
		t.Fatal("no renewal was sent after the cut: the test proves nothing")
	}
	if n := renewals.crossed(); n > 0 {
		t.Errorf("%d renewals sent after the cut were acknowledged: they crossed the partition", n)
	}
	return expired, after
}

// renewalLog matches every keep-alive acknowledgement to the renewal it
// answers, so a test can tell the ack of a renewal that was already on its
// way at a cut from one that crossed it, however late either is read. etcd
// answers the renewals of one keep-alive stream one at a time and in order
// (a follower forwards each to the leader and waits for the answer before
// it reads the next), so the n-th ack on a stream answers its n-th renewal;
// and a renewal the client sent after the cut reached the follower after
// it, so it cannot have crossed before it.
type renewalLog struct {
	mu           sync.Mutex    // guards cut and nCrossed, and each stream's counts
	cut          bool          // renewals sent from now on are sent after the cut
	nCrossed     int           // acks (TTL > 0) of renewals sent after the cut
	sentAfterCut chan struct{} // closed at the first renewal sent after the cut
}

func newRenewalLog() *renewalLog { return &renewalLog{sentAfterCut: make(chan struct{})} }

// markCut is called once the cut is in place.
func (r *renewalLog) markCut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cut = true
}

// crossed returns the number of renewals sent after the cut that were
// acknowledged.
func (r *renewalLog) crossed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nCrossed
}

// intercept is a gRPC stream interceptor that watches every keep-alive
// stream the client opens.
func (r *renewalLog) intercept(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	s, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil || method != pb.Lease_LeaseKeepAlive_FullMethodName {
		return s, err
	}
	return &renewalStream{ClientStream: s, log: r}, nil
}

// renewalStream is one keep-alive stream.
type renewalStream struct {
	grpc.ClientStream
	log      *renewalLog
	afterCut []bool // for each renewal sent, in order: sent after the cut? Guarded by log.mu.
	acked    int    // acks received; guarded by log.mu
}

// SendMsg records the renewal before it leaves, so one recorded as after
// the cut surely left after it.
func (s *renewalStream) SendMsg(m any) error {
	r := s.log
	r.mu.Lock()
	s.afterCut = append(s.afterCut, r.cut)
	if r.cut {
		select {
		case <-r.sentAfterCut:
		default:
			close(r.sentAfterCut)
		}
	}
	r.mu.Unlock()
	return s.ClientStream.SendMsg(m)
}

func (s *renewalStream) RecvMsg(m any) error {
	if err := s.ClientStream.RecvMsg(m); err != nil {
		return err
	}
	r := s.log
	r.mu.Lock()
	defer r.mu.Unlock()
	n := s.acked
	s.acked++
	resp, ok := m.(*pb.LeaseKeepAliveResponse)
	if ok && resp.TTL > 0 && (n >= len(s.afterCut) || s.afterCut[n]) {
		r.nCrossed++ // (an ack with no renewal sent would be as wrong)
	}
	return nil
}

// A follower cut off from everyone must not receive a single entry, through
// the append stream or a snapshot, until the cut heals; then it catches up
// (here by snapshot: the leader's log is compacted meanwhile).
func TestPartitionStopsAppendsAndSnapshots(t *testing.T) {
	eachClock(t, partitionStopsAppendsAndSnapshots)
}

func partitionStopsAppendsAndSnapshots(t *testing.T, clock Clock) {
	c := New(t, Config{Clock: clock, SnapshotCount: 20})
	lead := leader(t, c)
	victim := followers(c, lead)[0]
	cli := client(t, c, "c", lead.Name())
	put(t, cli, "before", "x")
	eventually(t, "the victim applies the first write", func() bool {
		return victim.Server().AppliedIndex() >= lead.Server().AppliedIndex()
	})
	if err := c.Isolate(victim.Name()); err != nil {
		t.Fatal(err)
	}
	// Entries that crossed just before the cut may still be applying; take
	// the frozen index once it has stood still for 200ms.
	frozen := victim.Server().AppliedIndex()
	eventually(t, "the victim's applied index settles after the cut", func() bool {
		time.Sleep(200 * time.Millisecond)
		now := victim.Server().AppliedIndex()
		settled := now == frozen
		frozen = now
		return settled
	})
	for i := range 200 { // ten snapshots' worth
		put(t, cli, fmt.Sprintf("k%03d", i), "v")
	}
	if got := victim.Server().AppliedIndex(); got != frozen {
		t.Fatalf("isolated member applied index moved %d → %d: entries leaked through the partition", frozen, got)
	}
	if err := c.HealAll(); err != nil {
		t.Fatal(err)
	}
	want := lead.Server().AppliedIndex()
	eventually(t, "the healed member catches up", func() bool {
		return victim.Server().AppliedIndex() >= want
	})
	direct := client(t, c, "v", victim.Name())
	if got := get(t, direct, "k199"); got != "v" {
		t.Errorf("healed member reads k199=%q, want v", got)
	}
}

func TestIsolatedLeaderIsReplacedAndCannotCommit(t *testing.T) {
	eachClock(t, isolatedLeaderIsReplacedAndCannotCommit)
}

func isolatedLeaderIsReplacedAndCannotCommit(t *testing.T, clock Clock) {
	c := New(t, Config{Clock: clock})
	old := leader(t, c)
	oldTerm := old.Term()
	stuck := client(t, c, "stuck", old.Name())
	if err := c.Isolate(old.Name()); err != nil {
		t.Fatal(err)
	}
	// The isolated member drops its client links too; give the client its
	// own links back so only the peer cut is tested.
	if err := c.SetLinks("stuck", old.Name(), Healthy); err != nil {
		t.Fatal(err)
	}
	var next *Member
	eventually(t, "the majority elects a new leader", func() bool {
		m := c.agreedLeader()
		if m != nil && m != old {
			next = m
			return true
		}
		return false
	})
	// Term is the term of the last applied entry, so it moves once the new
	// leader's first entry commits, not at the election itself.
	eventually(t, "the new leader's term passes the old one", func() bool {
		return next.Term() > oldTerm
	})
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	_, err := stuck.Put(ctx, "lost", "x")
	cancel()
	if err == nil {
		t.Fatal("a write through the isolated old leader committed")
	}
	if err := c.HealAll(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	put(t, stuck, "after", "heal")
}

// Partitions, isolation and heals set the links they name and no other,
// and bad names and conditions are refused with errors that say why. The
// test runs on the virtual clock: it reads the links' bookkeeping and
// checks one write, which the link tests check on both clocks; a bubble
// cannot hold t.Run, so the bad inputs are one loop.
func TestPartitionGroupsAndBadNames(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, partitionGroupsAndBadNames)
}

func partitionGroupsAndBadNames(t *testing.T) {
	c := New(t, Config{Clock: ClockVirtual})
	c1 := client(t, c, "c1")
	if err := c.Partition([]string{"m0", "c1"}, []string{"m1", "m2"}); err != nil {
		t.Fatal(err)
	}
	links := c.Links()
	// m0↔m1, m0↔m2, c1↔m1, c1↔m2: eight directed links.
	if len(links) != 8 {
		t.Errorf("partition cut %d links, want 8: %v", len(links), links)
	}
	for _, l := range links {
		if l.Condition.Mode != Blackhole {
			t.Errorf("link %v: want blackhole", l)
		}
	}
	if got, _ := c.LinkCondition("c1", "m0"); got != Healthy {
		t.Errorf("c1→m0 is %v inside one group, want up", got)
	}
	if err := c.HealAll(); err != nil {
		t.Fatal(err)
	}
	if got := c.Links(); len(got) != 0 {
		t.Errorf("after HealAll, faulty links remain: %v", got)
	}

	// Heal undoes Isolate for one node and leaves the others' faults.
	if err := c.Isolate("c1"); err != nil {
		t.Fatal(err)
	}
	if err := c.SetLink("m1", "m2", Rejecting()); err != nil {
		t.Fatal(err)
	}
	if err := c.Heal("c1"); err != nil {
		t.Fatal(err)
	}
	if got := c.Links(); len(got) != 1 || got[0].From != "m1" || got[0].To != "m2" {
		t.Errorf("after Heal(c1), faulty links are %v; want only m1→m2", got)
	}
	put(t, client(t, c, "c3"), "k", "v")
	if got := get(t, c1, "k"); got != "v" {
		t.Errorf("healed c1 reads k=%q, want v", got)
	}
	if err := c.HealAll(); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"unknown member", func() error { return c.SetLink("m0", "m7", Blackholed()) }, `no member or client named "m7"`},
		{"heal unknown", func() error { return c.Heal("m7") }, `no member or client named "m7"`},
		{"unknown client", func() error { return c.Isolate("nobody") }, `no member or client named "nobody"`},
		{"client to client", func() error { client(t, c, "c2"); return c.SetLink("c1", "c2", Blackholed()) }, "never two clients"},
		{"self link", func() error { return c.SetLink("m1", "m1", Blackholed()) }, "to itself"},
		{"delay on blackhole", func() error { return c.SetLink("m0", "m1", Condition{Mode: Blackhole, Delay: time.Second}) }, "cannot have a delay"},
		{"negative delay", func() error { return c.SetLink("m0", "m1", Delayed(-time.Second, 0)) }, "must not be negative"},
		{"jitter without delay", func() error { return c.SetLink("m0", "m1", Condition{Jitter: time.Millisecond}) }, "needs a delay"},
		{"bad mode", func() error { return c.SetLink("m0", "m1", Condition{Mode: 9}) }, "unknown link mode"},
		{"one group", func() error { return c.Partition([]string{"m0", "m1", "m2"}) }, "at least two groups"},
		{"node twice", func() error { return c.Partition([]string{"m0"}, []string{"m0", "m1"}) }, "in partition groups 0 and 1"},
		{"empty group", func() error { return c.Partition([]string{"m0"}, nil) }, "group 1 is empty"},
		{"unknown member name", func() error { _, err := c.Member("m9"); return err }, `no member or client named "m9"`},
		{"client named like a member", func() error { _, err := c.NewClient("m4", ClientConfig{}); return err }, "not a member name"},
		{"client bad name", func() error { _, err := c.NewClient("", ClientConfig{}); return err }, "bad client name"},
		{"client twice", func() error { _, err := c.NewClient("c1", ClientConfig{}); return err }, "exists already"},
		{"client to unknown member", func() error { _, err := c.NewClient("c9", ClientConfig{Members: []string{"m5"}}); return err }, `"m5"`},
		{"client with no members", func() error { _, err := c.NewClient("c8", ClientConfig{Members: []string{}}); return err }, "Members is empty"},
	} {
		if err := tc.call(); err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}
