package cluster

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// cutOff reports whether a Put through cli fails within 300ms: a client
// whose links are cut cannot complete one.
func cutOff(cli *clientv3.Client) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := cli.Put(ctx, "probe", "x")
	return err != nil
}

// ownClient is what code that dials etcd itself does with endpoints.
func ownClient(t *testing.T, endpoints []string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// The tests of ClientEndpoints run on the real clock: it gives out
// loopback addresses for code that dials etcd with sockets of its own,
// which exist only there (on the virtual clock it refuses, with
// ErrNeedsRealClock, as the network is in memory). Their waits stretch
// with the machine's load (testCtx, put, get); cutOff's short deadline is
// for a Put that must fail, and bounds only how long it waits to see that.

// Code given only ClientEndpoints(name) is a client like any other: the
// name is listed, and a fault aimed at it cuts that code off and no one
// else.
func TestClientEndpointsCarryOnlyThatClient(t *testing.T) {
	c := New(t, Config{})
	eps, err := c.ClientEndpoints("ext")
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 3 {
		t.Fatalf("endpoints %v: want one per member", eps)
	}
	for _, m := range c.Members() {
		if slices.Contains(eps, m.Endpoint()) {
			t.Errorf("endpoints %v include %s's front endpoint, which no fault touches", eps, m.Name())
		}
	}
	if again, err := c.ClientEndpoints("ext"); err != nil || !slices.Equal(again, eps) {
		t.Errorf("second ClientEndpoints(ext) = %v, %v; want %v", again, err, eps)
	}
	if got := c.ClientNames(); !slices.Equal(got, []string{"ext"}) {
		t.Errorf("ClientNames = %v, want [ext]", got)
	}

	ext := ownClient(t, eps)
	other := client(t, c, "other")
	put(t, ext, "k", "from ext")
	if err := c.Isolate("ext"); err != nil {
		t.Fatal(err)
	}
	if !cutOff(ext) {
		t.Fatal("a Put through ClientEndpoints(ext) succeeded while ext was isolated")
	}
	put(t, other, "k", "from other")
	if err := c.Heal("ext"); err != nil {
		t.Fatal(err)
	}
	put(t, ext, "k", "from ext again")

	// Client(name) gives the name a *clientv3.Client on the same links.
	cli, err := c.Client("ext")
	if err != nil {
		t.Fatal(err)
	}
	if got := cli.Endpoints(); !slices.Equal(got, eps) {
		t.Errorf("Client(ext) dials %v, want ClientEndpoints' %v", got, eps)
	}
	if _, err := c.NewClient("ext", ClientConfig{}); err == nil || !contains(err.Error(), "exists already") {
		t.Errorf("NewClient(ext) after ClientEndpoints(ext): %v, want exists already", err)
	}
}

// Callers racing to make one name get one client, whichever asks first.
func TestConcurrentCallsMakeOneClient(t *testing.T) {
	c := New(t, Config{Members: 1})
	clis := make([]*clientv3.Client, 8)
	var g errgroup.Group
	for i := range clis {
		g.Go(func() error {
			if i%2 == 0 {
				_, err := c.ClientEndpoints("c1")
				if err != nil {
					return err
				}
			}
			var err error
			clis[i], err = c.Client("c1")
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for i, cli := range clis {
		if cli == nil || cli != clis[0] {
			t.Errorf("caller %d got client %p, caller 0 got %p; want one client", i, cli, clis[0])
		}
	}
}

func TestClientEndpointsErrors(t *testing.T) {
	c, err := Start(testCtx(t), Config{Members: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ClientEndpoints("m0"); err == nil || !contains(err.Error(), "not a member name") {
		t.Errorf("ClientEndpoints(m0): %v, want a bad name", err)
	}
	if _, err := c.ClientEndpoints(""); err == nil || !contains(err.Error(), "bad client name") {
		t.Errorf(`ClientEndpoints(""): %v, want a bad name`, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if eps, err := c.ClientEndpoints("late"); !errors.Is(err, ErrClosed) {
		t.Errorf("ClientEndpoints after Close = %v, %v; want ErrClosed", eps, err)
	}
	var zero Cluster
	if eps, err := zero.ClientEndpoints("c1"); !errors.Is(err, ErrClosed) {
		t.Errorf("ClientEndpoints on a zero Cluster = %v, %v; want ErrClosed", eps, err)
	}
}

// A crashed client's keep-alives stop with it, so its lease expires on the
// server; RestartClient gives the name a fresh client that works. The test
// runs on the virtual clock: the client is the harness's own, and the
// lease's second passes in the bubble's time; a bubble cannot hold t.Run,
// so the bad names are one loop.
func TestCrashClientLetsItsLeaseExpire(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, crashClientLetsItsLeaseExpire)
}

func crashClientLetsItsLeaseExpire(t *testing.T) {
	c := New(t, Config{Clock: ClockVirtual})
	ctx := testCtx(t)
	cli := client(t, c, "c1")
	observer := client(t, c, "obs")
	lease, err := cli.Grant(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	acks, err := cli.KeepAlive(context.Background(), lease.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := <-acks; !ok {
		t.Fatal("the keepalive ended before its first renewal")
	}
	watch := cli.Watch(context.Background(), "k")
	if err := c.CrashClient("c1"); err != nil {
		t.Fatal(err)
	}
	// Both channels close with the client: its keep-alive and watch stopped.
	for range acks {
	}
	for range watch {
	}
	eventually(t, "the crashed client's lease expires on the server", func() bool {
		resp, err := observer.TimeToLive(ctx, lease.ID)
		return err == nil && resp.TTL == -1
	})
	if got := c.ClientNames(); !slices.Contains(got, "c1") {
		t.Errorf("ClientNames %v lacks the crashed c1: faults could no longer aim at it", got)
	}
	if _, err := c.Client("c1"); !errors.Is(err, ErrCrashed) {
		t.Errorf("Client(c1) while crashed: %v, want ErrCrashed", err)
	}
	if err := c.CrashClient("c1"); !errors.Is(err, ErrCrashed) {
		t.Errorf("CrashClient(c1) twice: %v, want ErrCrashed", err)
	}

	fresh, err := c.RestartClient("c1")
	if err != nil {
		t.Fatal(err)
	}
	if fresh == cli {
		t.Fatal("RestartClient returned the crashed client")
	}
	if got, err := c.Client("c1"); err != nil || got != fresh {
		t.Errorf("Client(c1) after restart = %p, %v; want the fresh client %p", got, err, fresh)
	}
	put(t, fresh, "k", "after restart")
	if _, err := c.RestartClient("c1"); err == nil || !contains(err.Error(), "not crashed") {
		t.Errorf("RestartClient of a running client: %v, want not crashed", err)
	}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"crash unknown", func() error { return c.CrashClient("nobody") }},
		{"restart unknown", func() error { _, err := c.RestartClient("nobody"); return err }},
		{"crash a member", func() error { return c.CrashClient("m0") }},
	} {
		if err := tc.call(); !errors.Is(err, ErrUnknownNode) {
			t.Errorf("%s: got %v, want ErrUnknownNode", tc.name, err)
		}
	}
}

// A crash cuts off code that dials etcd itself through ClientEndpoints, and
// it is a state of the client, not of its links: link faults set before
// the crash are still there after RestartClient, and faults may change
// links meanwhile.
func TestCrashComposesWithLinkFaults(t *testing.T) {
	c := New(t, Config{})
	eps, err := c.ClientEndpoints("ext")
	if err != nil {
		t.Fatal(err)
	}
	ext := ownClient(t, eps)
	put(t, ext, "k", "v")
	if err := c.SetLink("m0", "ext", Delayed(time.Millisecond, 0)); err != nil {
		t.Fatal(err)
	}
	before := c.Links()
	if err := c.CrashClient("ext"); err != nil {
		t.Fatal(err)
	}
	if !cutOff(ext) {
		t.Fatal("code holding ClientEndpoints(ext) still writes while ext is crashed")
	}
	if got := c.Links(); !slices.Equal(got, before) {
		t.Errorf("CrashClient changed the links: %v, want %v", got, before)
	}
	if err := c.Isolate("ext"); err != nil { // a fault while it is down
		t.Fatal(err)
	}
	if _, err := c.RestartClient("ext"); err != nil {
		t.Fatal(err)
	}
	if !cutOff(ext) {
		t.Fatal("ext came back through its isolation")
	}
	if err := c.Heal("ext"); err != nil {
		t.Fatal(err)
	}
	put(t, ext, "k", "after heal") // its own client reconnects once the links accept it
}
