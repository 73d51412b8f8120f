package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
)

// libraryClient builds a client the way a library that takes an address
// string does (vitess's etcd2topo): endpoints alone, a dial timeout and a
// blocking dial (which clientv3 v3.7's grpc.NewClient ignores), with no
// dialer of etcdsim's.
func libraryClient(eps []string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
		Endpoints:   eps,
		DialTimeout: 5 * time.Second,
		DialOptions: []grpc.DialOption{grpc.WithBlock()}, //nolint:staticcheck // as vitess dials
		Logger:      quietLogger(),
	})
}

// A library that builds its own client from EndpointsOf's addresses alone
// runs in the bubble on the virtual clock, on the named client's links: it
// reads what the harness's client wrote, a fault aimed at the name cuts it
// off, a crash of the name closes it, and the restarted process gets
// addresses of its own.
func TestEndpointsOfVirtual(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(t, Config{})
		cli := client(t, c, "lib")
		eps, err := EndpointsOf(cli, "lib", "no dialer")
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range eps {
			if u, err := url.Parse(ep); err != nil || !strings.HasSuffix(u.Hostname(), ".etcdsim.invalid") {
				t.Fatalf("EndpointsOf on the virtual clock gave %q, want an http URL under .etcdsim.invalid", ep)
			}
		}
		own, err := libraryClient(eps)
		if err != nil {
			t.Fatal(err)
		}
		defer own.Close()
		onLinks(t, c, cli, own, "lib")
		put(t, own, "k", "w")

		if err := c.CrashClient("lib"); err != nil {
			t.Fatal(err)
		}
		if _, err := EndpointsOf(cli, "lib", "no dialer"); !errors.Is(err, ErrCrashed) {
			t.Errorf("EndpointsOf of a crashed client = %v, want ErrCrashed", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err = own.Get(ctx, "k")
		cancel()
		if err == nil {
			t.Error("the library's client of a crashed process still reads")
		}
		restarted, err := c.RestartClient("lib")
		if err != nil {
			t.Fatal(err)
		}
		again, err := EndpointsOf(restarted, "lib", "no dialer")
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(again, eps) {
			t.Errorf("the restarted process got the dead one's addresses %v", eps)
		}
		if dead, err := libraryClient(eps); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err = dead.Get(ctx, "k")
			cancel()
			dead.Close()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a client of the dead process's addresses got %v after the restart, want no connection", err)
			}
		}
		own2, err := libraryClient(again)
		if err != nil {
			t.Fatal(err)
		}
		defer own2.Close()
		if got := get(t, own2, "k"); got != "w" {
			t.Fatalf("the restarted library's client read %q, want w", got)
		}
	})
}

// oneMemberLib starts a one-member cluster on the virtual clock (its
// callers run in a bubble) and returns the addresses EndpointsOf gives a
// library of its client "lib".
func oneMemberLib(t *testing.T) (*Cluster, []string) {
	t.Helper()
	c := New(t, Config{Clock: ClockVirtual, Members: 1})
	eps, err := EndpointsOf(client(t, c, "lib"), "lib", "no dialer")
	if err != nil {
		t.Fatal(err)
	}
	return c, eps
}

// An address the harness did not give, dialed by a client named after one
// it did, is refused by name and recorded; a channel whose target is none
// of etcdsim's dials as gRPC would.
func TestEndpointsOfStrayDial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, eps := oneMemberLib(t)
		// The member's own client URL, as a client that synced its
		// endpoints from the member list would dial.
		stray := "127.0.0.1:2379"
		bad, err := clientv3.New(clientv3.Config{Endpoints: []string{eps[0], "http://" + stray}, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		defer bad.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		for ctx.Err() == nil && len(c.StrayDials()) == 0 {
			bad.Get(ctx, "k") //nolint:errcheck // round robin: some go to the stray address
		}
		strays := c.StrayDials()
		if len(strays) == 0 || !errors.Is(strays[0], ErrStrayDial) || !strings.Contains(strays[0].Error(), stray) {
			t.Fatalf("StrayDials = %v, want the refusal of %s", strays, stray)
		}
	})
	// Every other target dials as gRPC would: internal/libdial's
	// TestOtherTargetsDialAsGRPCWould.
}

// A channel of a library's client that dials again after its process
// crashed — one no call had handed to the process's life, or one the crash
// reset before the life closed it — is refused as a crashed process's, and
// not recorded as a stray dial: a process that crashed dials nothing, and
// the library is not at fault.
func TestEndpointsOfChannelOutlivesItsProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, eps := oneMemberLib(t)
		u, err := url.Parse(eps[0])
		if err != nil {
			t.Fatal(err)
		}
		// No call goes through it, so no interceptor hands it to the life;
		// round robin, as clientv3 balances, reconnects on its own.
		cc, err := grpc.NewClient("passthrough:///"+u.Host, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultServiceConfig(`{"loadBalancingConfig":[{"round_robin":{}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		cc.Connect()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		for s := cc.GetState(); s != connectivity.Ready && cc.WaitForStateChange(ctx, s); s = cc.GetState() {
		}
		cancel()
		if s := cc.GetState(); s != connectivity.Ready {
			t.Fatalf("the channel to %s is %v, want READY", u.Host, s)
		}
		if err := c.CrashClient("lib"); err != nil {
			t.Fatal(err)
		}
		// gRPC redials with its backoff, 1s and growing: give it several.
		time.Sleep(20 * time.Second)
		if s := cc.GetState(); s == connectivity.Ready {
			t.Errorf("the channel of the crashed process is READY again")
		}
		if strays := c.StrayDials(); len(strays) > 0 {
			t.Errorf("StrayDials = %v, want none: the redials are the crashed process's own", strays)
		}
	})
}

// Libraries of clusters in different bubbles at once each reach their own
// cluster, though their addresses name the same members and client.
func TestEndpointsOfClusters(t *testing.T) {
	for i := range 2 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				c := New(t, Config{Members: 1})
				cli := client(t, c, "lib")
				put(t, cli, "who", fmt.Sprint(i))
				eps, err := EndpointsOf(cli, "lib", "no dialer")
				if err != nil {
					t.Fatal(err)
				}
				own, err := libraryClient(eps)
				if err != nil {
					t.Fatal(err)
				}
				defer own.Close()
				for range 20 {
					if got := get(t, own, "who"); got != fmt.Sprint(i) {
						t.Fatalf("the library of cluster %d read %q", i, got)
					}
					time.Sleep(50 * time.Millisecond)
				}
			})
		})
	}
}
