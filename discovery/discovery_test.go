package discovery_test

import (
	"context"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/discovery"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestRegistrationsAppearAndDisappear checks that, on a healthy cluster,
// every resolver sees instances register and deregister.
func TestRegistrationsAppearAndDisappear(t *testing.T) {
	eachResolver(t, "appear", func(t *testing.T, ctx context.Context, service string, reg *clientv3.Client, res discovery.Resolver) {
		opts := discovery.Options{TTL: 5 * time.Second}
		register(t, ctx, "keepalive", reg, service, "10.0.0.1:1", opts)
		y := register(t, ctx, "keepalive", reg, service, "10.0.0.2:1", opts)
		waitState(t, ctx, res, "x and y", hasAddrs("10.0.0.1:1", "10.0.0.2:1"))

		if err := y.Close(); err != nil {
			t.Fatal(err)
		}
		waitState(t, ctx, res, "x alone", hasAddrs("10.0.0.1:1"))
		register(t, ctx, "keepalive", reg, service, "10.0.0.3:1", opts)
		waitState(t, ctx, res, "x and z", hasAddrs("10.0.0.1:1", "10.0.0.3:1"))
	})
}

// TestRoundRobin dials etcd:///<service> through the correct resolver and
// checks that calls reach every live instance, and only live ones after
// one deregisters and stops.
func TestRoundRobin(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		ctx := clustertest.Context(t)
		const service = "echo"
		reg := clustertest.Client(t, c, "reg")
		opts := discovery.Options{TTL: 5 * time.Second}
		var backends []*discovery.Backend
		var regs []discovery.Registrar
		for _, name := range []string{"a", "b", "c"} {
			b := backend(t, c, name)
			backends = append(backends, b)
			regs = append(regs, register(t, ctx, "keepalive", reg, service, b.Addr(), opts))
		}
		res := resolve(t, "relisting", clustertest.Client(t, c, "res"), service)
		cc, err := discovery.Dial(res, service, c.DialOptions()...)
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()

		reached := func(live map[string]bool) {
			t.Helper()
			seen := map[string]int{}
			for calls := 0; len(seen) < len(live) || calls < 3*len(live); calls++ {
				who, echoed, err := discovery.Echo(ctx, cc, "hi")
				if err != nil {
					t.Fatal(err)
				}
				if echoed != "hi" || !live[who] {
					t.Fatalf("call %d answered by %q with %q; live: %v", calls, who, echoed, live)
				}
				seen[who]++
			}
			t.Logf("calls per instance: %v", seen)
		}
		reached(map[string]bool{"a": true, "b": true, "c": true})

		// b deregisters; once the resolver has dropped it, b stops.
		if err := regs[1].Close(); err != nil {
			t.Fatal(err)
		}
		waitState(t, ctx, res, "a and c", hasAddrs(backends[0].Addr(), backends[2].Addr()))
		if err := backends[1].Close(); err != nil {
			t.Fatal(err)
		}
		before := backends[1].Calls()
		reached(map[string]bool{"a": true, "c": true})
		if after := backends[1].Calls(); after != before {
			t.Errorf("b answered %d calls after it deregistered", after-before)
		}
	})
}
