package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/seed"
	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// The link tests run on both clocks (eachClock): a link is a proxy on
// loopback TCP sockets on the real clock and on in-memory connections on
// the virtual one, and a member→member link knows its sender from a TLS
// certificate on the real clock only. The real clock is here for those
// sockets, which Config.Clock: ClockReal and simrun -clock real run; a
// wait for something to happen stretches with the machine's load
// (testCtx, patience.Scale), while a request that must hang keeps a short
// deadline, which bounds only how long the test waits to see it fail.

func TestBlackholedRequestsHangAndHealResumes(t *testing.T) {
	eachClock(t, blackholedRequestsHangAndHealResumes)
}

func blackholedRequestsHangAndHealResumes(t *testing.T, clock Clock) {
	c := New(t, Config{Clock: clock})
	cli := client(t, c, "c1", "m0")
	put(t, cli, "k", "before")
	if err := c.SetLink("c1", "m0", Blackholed()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err := cli.Put(ctx, "k", "during")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("put through a blackholed link returned %v, want it to hang until the deadline", err)
	}
	if err := c.SetLink("c1", "m0", Healthy); err != nil {
		t.Fatal(err)
	}
	put(t, cli, "k", "after")
	other := client(t, c, "c2")
	if got := get(t, other, "k"); got != "after" {
		t.Errorf("k=%q, want after (a blackholed request must never arrive)", got)
	}
}

// Responses lost: the request reaches the member and is applied, the caller
// never hears.
func TestOneWayCutLosesResponsesOnly(t *testing.T) { eachClock(t, oneWayCutLosesResponsesOnly) }

func oneWayCutLosesResponsesOnly(t *testing.T, clock Clock) {
	c := New(t, Config{Clock: clock})
	cli := client(t, c, "c1", "m0")
	other := client(t, c, "c2", "m1")
	put(t, cli, "k", "before")
	if err := c.SetLink("m0", "c1", Blackholed()); err != nil {
		t.Fatal(err)
	}
	// Long enough for the request to reach m0 and be applied however
	// slow the machine is (half a second on an idle one): only its
	// response is lost.
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(500*time.Millisecond))
	_, err := cli.Put(ctx, "k", "applied-unheard")
	cancel()
	if err == nil {
		t.Fatal("the caller heard back through a blackholed response link")
	}
	if got := get(t, other, "k"); got != "applied-unheard" {
		t.Errorf("another client reads k=%q, want the write whose response was lost", got)
	}
	if err := c.HealAll(); err != nil {
		t.Fatal(err)
	}
	if got := get(t, cli, "k"); got != "applied-unheard" {
		t.Errorf("after heal the caller reads %q", got)
	}
}

// Reject ends connections at once: a raw dial through the client's link
// is cut off instead of hanging. On the real clock that is the kernel's
// reset of a TCP connection (ECONNRESET); the in-memory network of the
// virtual clock has no reset, and the connection just closes (EOF).
func TestRejectResetsConnections(t *testing.T) { eachClock(t, rejectResetsConnections) }

func rejectResetsConnections(t *testing.T, clock Clock) {
	c := New(t, Config{Clock: clock})
	client(t, c, "c1", "m0")
	addr := c.clients["c1"].proxies["m0"].addr()
	if err := c.SetLink("c1", "m0", Rejecting()); err != nil {
		t.Fatal(err)
	}
	conn, err := c.net.dial(testCtx(t), addr)
	if err == nil { // the reset may come during the dial or on the first read
		defer conn.Close()
		conn.SetReadDeadline(time.Now().Add(patience.Scale(5 * time.Second)))
		_, err = conn.Read(make([]byte, 1))
	}
	if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) {
		t.Fatalf("read through a rejecting link: %v, want a reset", err)
	}
	// The same dial while the link is up reaches etcd's server: on the
	// real clock its listener answers HTTP/1.1; on the virtual clock
	// the gRPC server alone listens, and opens with HTTP/2's SETTINGS
	// frame (type 4, the fourth byte of its header).
	if err := c.SetLink("c1", "m0", Healthy); err != nil {
		t.Fatal(err)
	}
	conn2, err := c.net.dial(testCtx(t), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	fmt.Fprintf(conn2, "GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
	conn2.SetReadDeadline(time.Now().Add(patience.Scale(5 * time.Second)))
	b := make([]byte, 12)
	_, err = io.ReadFull(conn2, b)
	answered := string(b[:5]) == "HTTP/"
	if clock == ClockVirtual {
		answered = b[3] == 4
	}
	if err != nil || !answered {
		t.Errorf("healthy link on the %s clock: read %q, %v; want an answer of etcd's server", clock, b, err)
	}
}

func TestDelayHoldsBytesBackInOrder(t *testing.T) { eachClock(t, delayHoldsBytesBackInOrder) }

func delayHoldsBytesBackInOrder(t *testing.T, clock Clock) {
	c := New(t, Config{Clock: clock, Seed: 7})
	cli := client(t, c, "c1", "m0")
	put(t, cli, "k", "0")
	const d = 100 * time.Millisecond
	if err := c.SetLink("c1", "m0", Delayed(d, 20*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	// A request-response crosses the delayed link once: at least d-jitter.
	start := time.Now()
	if got := get(t, cli, "k"); got != "0" {
		t.Fatalf("k=%q", got)
	}
	if took := time.Since(start); took < d-20*time.Millisecond {
		t.Errorf("a read through a %v±20ms link took only %v", d, took)
	}
	// Jitter never reorders: a burst of pipelined writes lands in order.
	if err := c.SetLink("c1", "m0", Delayed(5*time.Millisecond, 5*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	errs := make(chan error, 50)
	for i := 1; i <= 50; i++ {
		go func() {
			_, err := cli.Put(ctx, fmt.Sprintf("burst/%02d", i), "x")
			errs <- err
		}()
	}
	for range 50 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	resp, err := cli.Get(ctx, "burst/", clientWithPrefix())
	if err != nil || len(resp.Kvs) != 50 {
		t.Fatalf("burst through a jittery link: %d keys, %v; want 50", len(resp.Kvs), err)
	}
}

// The network's jitter comes from Config.Seed alone: one seed, one sequence
// of delays; another seed, another.
func TestJitterReplaysFromSeed(t *testing.T) {
	samples := func(seed seed.Seed) []time.Duration {
		n := newNetwork(seed, nil, 0)
		defer n.close()
		var out []time.Duration
		for range 20 {
			out = append(out, n.sampleDelay(Delayed(50*time.Millisecond, 50*time.Millisecond)))
		}
		return out
	}
	if diff := cmp.Diff(samples(7), samples(7)); diff != "" {
		t.Errorf("seed 7 twice gave different jitter (-first +second):\n%s", diff)
	}
	if cmp.Equal(samples(7), samples(8)) {
		t.Errorf("seeds 7 and 8 gave the same jitter: %v", samples(7))
	}
}

// A member→member one-way cut: the leader cannot reach one follower, which
// hears nothing and cannot vote a new leader in either (pre-vote and check
// quorum keep the others' leader).
func TestOneWayCutBetweenMembers(t *testing.T) { eachClock(t, oneWayCutBetweenMembers) }

func oneWayCutBetweenMembers(t *testing.T, clock Clock) {
	c := New(t, Config{Clock: clock})
	lead := leader(t, c)
	f := followers(c, lead)[0]
	if err := c.SetLink(lead.Name(), f.Name(), Blackholed()); err != nil {
		t.Fatal(err)
	}
	cli := client(t, c, "c1", lead.Name())
	local := client(t, c, "local", f.Name())
	// Proposed after the cut, so only a message that crossed it could
	// bring this write to the follower. (Its applied index is no measure:
	// entries that crossed before the cut may still be applying.)
	put(t, cli, "k", "v")
	time.Sleep(200 * time.Millisecond) // two election timeouts
	resp, err := local.Get(testCtx(t), "k", clientv3.WithSerializable())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 0 {
		t.Errorf("follower has k=%s, written after the leader→follower link was cut", resp.Kvs[0].Value)
	}
	if err := c.HealAll(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the follower catches up", func() bool {
		return f.Server().AppliedIndex() >= lead.Server().AppliedIndex()
	})
}
