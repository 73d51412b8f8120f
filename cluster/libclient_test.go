package cluster

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
)

// A library that builds its own client from ClientConfigOf runs in the
// bubble on the virtual clock, on the named client's links: it reads what
// the harness's client wrote, a fault aimed at the name cuts it off, and
// an address of its own is refused with an error naming it.
func TestClientConfigOfVirtual(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(t, Config{})
		cli := client(t, c, "svc")
		cfg, err := ClientConfigOf(cli)
		if err != nil {
			t.Fatal(err)
		}
		own, err := clientv3.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer own.Close()
		onLinks(t, c, cli, own, "svc")

		stray := cfg
		stray.Endpoints = []string{"http://127.0.0.1:2379"}
		stray.DialTimeout = time.Second
		bad, err := clientv3.New(stray)
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_, err = bad.Get(ctx, "k")
			cancel()
			bad.Close()
		}
		if err == nil {
			t.Fatal("a client dialing an address the harness did not give reached etcd")
		}
		strays := c.StrayDials()
		if len(strays) == 0 || !errors.Is(strays[0], ErrStrayDial) {
			t.Fatalf("StrayDials = %v, want the refusal of 127.0.0.1:2379", strays)
		}
		if err := RealSocketsOnly(cli, "lib", "no dial options"); !errors.Is(err, ErrNeedsRealClock) {
			t.Errorf("RealSocketsOnly on the virtual clock = %v, want ErrNeedsRealClock", err)
		}

		if err := c.CrashClient("svc"); err != nil {
			t.Fatal(err)
		}
		if _, err := ClientConfigOf(cli); !errors.Is(err, ErrCrashed) {
			t.Errorf("ClientConfigOf of a crashed client = %v, want ErrCrashed", err)
		}
	})
}

// onLinks checks that a library's client own reaches the cluster on the
// links of cli's named client name: it reads what cli wrote, and isolating
// the name cuts it off until healed.
func onLinks(t *testing.T, c *Cluster, cli, own *clientv3.Client, name string) {
	t.Helper()
	put(t, cli, "k", "v")
	if got := get(t, own, "k"); got != "v" {
		t.Fatalf("the library's client read %q, want v", got)
	}
	if err := c.Isolate(name); err != nil {
		t.Fatal(err)
	}
	if !cutOff(own) {
		t.Error("the library's client still writes with its name isolated")
	}
	if err := c.Heal(name); err != nil {
		t.Fatal(err)
	}
}

func TestClientConfigOfForeignClient(t *testing.T) {
	if _, err := ClientConfigOf(nil); err == nil {
		t.Error("ClientConfigOf(nil) gave a configuration")
	}
}

// On the real clock a library that dials by itself gets the named
// client's URLs, and a fault aimed at the name reaches it.
// Real clock: the library dials real sockets, which is the point.
func TestEndpointsOfReal(t *testing.T) {
	c := New(t, Config{Clock: ClockReal})
	cli := client(t, c, "lib")
	eps, err := EndpointsOf(cli, "lib", "no dialer")
	if err != nil {
		t.Fatal(err)
	}
	own := ownClient(t, eps)
	put(t, own, "k", "v")
	if err := c.Isolate("lib"); err != nil {
		t.Fatal(err)
	}
	if !cutOff(own) {
		t.Error("the library's own client still writes with its name isolated")
	}
}

// A library's client that outlives its process — the library's Close came
// late, or never — ends with the process all the same: after CrashClient
// its lease is not kept alive, not even once the client's links are back.
func TestClientConfigOfEndsWithTheProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(t, Config{})
		cli := client(t, c, "proc")
		cfg, err := ClientConfigOf(cli)
		if err != nil {
			t.Fatal(err)
		}
		lib, err := clientv3.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer lib.Close() // only at the end, long after its process crashed
		ctx := context.Background()
		grant, err := lib.Grant(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lib.KeepAlive(cfg.Context, grant.ID); err != nil {
			t.Fatal(err)
		}
		if err := c.CrashClient("proc"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.RestartClient("proc"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Second)
		other := client(t, c, "other")
		ttl, err := other.TimeToLive(ctx, grant.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ttl.TTL > 0 {
			t.Errorf("the crashed process's lease still has %ds to live: its library's client kept it alive", ttl.TTL)
		}
	})
}

// A library's client from ClientConfigOf carries the dial options the
// named client's ClientConfig.Configure added: an interceptor the harness
// put on a process sees the library's calls too.
func TestClientConfigOfCarriesTheProcessOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(t, Config{})
		var seen atomic.Int64
		count := grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			if method == "/etcdserverpb.KV/Put" {
				seen.Add(1)
			}
			return invoke(ctx, method, req, reply, cc, opts...)
		})
		cli, err := c.NewClient("svc", ClientConfig{Configure: func(cfg *clientv3.Config) {
			cfg.DialOptions = append(cfg.DialOptions, count)
		}})
		if err != nil {
			t.Fatal(err)
		}
		put(t, cli, "k", "harness")
		cfg, err := ClientConfigOf(cli)
		if err != nil {
			t.Fatal(err)
		}
		own, err := clientv3.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer own.Close()
		put(t, own, "k", "library")
		if got := seen.Load(); got != 2 {
			t.Errorf("the process's interceptor saw %d puts, want 2: the harness client's and the library's", got)
		}
	})
}
