package discovery_test

import (
	"context"
	"slices"
	"testing"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/discovery"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// backend starts an echo backend on the cluster's network — in the bubble,
// where a real socket would hold the clock — and closes it when the test
// ends.
func backend(t *testing.T, c *cluster.Cluster, name string) *discovery.Backend {
	t.Helper()
	lis, err := c.ListenService()
	if err != nil {
		t.Fatal(err)
	}
	b := discovery.StartBackendOn(name, lis)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	return b
}

// register registers addr with the recipe called recipe and closes the
// registrar when the test ends.
func register(t *testing.T, ctx context.Context, recipe string, cli *clientv3.Client, service, addr string, opts discovery.Options) discovery.Registrar {
	t.Helper()
	r, err := discovery.LookupRegistrar(recipe)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := r.New(cli, service, addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := reg.Close(); err != nil {
			t.Errorf("close registrar of %s: %v", addr, err)
		}
	})
	if err := reg.Register(ctx); err != nil {
		t.Fatal(err)
	}
	return reg
}

// resolve starts a resolver with the recipe called recipe and closes it
// when the test ends.
func resolve(t testing.TB, recipe string, cli *clientv3.Client, service string) discovery.Resolver {
	t.Helper()
	r, err := discovery.LookupResolver(recipe)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.New(cli, service, discovery.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := res.Close(); err != nil {
			t.Error(err)
		}
	})
	return res
}

// waitState waits until the resolver's state satisfies ok and returns it.
func waitState(t testing.TB, ctx context.Context, res discovery.Resolver, what string, ok func(discovery.State) bool) discovery.State {
	t.Helper()
	var last discovery.State
	for s := range res.Observe(ctx) {
		if ok(s) {
			return s
		}
		last = s
	}
	t.Fatalf("resolver never showed %s; last state %+v (err %v)", what, last, last.Err)
	return last
}

// hasAddrs is a waitState condition: a current set of exactly addrs.
func hasAddrs(addrs ...string) func(discovery.State) bool {
	want := slices.Sorted(slices.Values(addrs))
	return func(s discovery.State) bool {
		return s.Listed && s.Err == nil && slices.Equal(s.Addrs(), want)
	}
}

// waitKey waits until key exists (present) or does not, watching between
// reads, and returns its lease.
func waitKey(t testing.TB, ctx context.Context, cli *clientv3.Client, key string, present bool) clientv3.LeaseID {
	t.Helper()
	for {
		resp, err := cli.Get(ctx, key)
		if err != nil {
			t.Fatalf("read %s: %v", key, err)
		}
		if (len(resp.Kvs) == 1) == present {
			if present {
				return clientv3.LeaseID(resp.Kvs[0].Lease)
			}
			return 0
		}
		wctx, cancel := context.WithCancel(ctx)
		<-cli.Watch(wctx, key, clientv3.WithRev(resp.Header.Revision+1))
		cancel()
		if ctx.Err() != nil {
			t.Fatalf("waiting for %s (present: %v): %v", key, present, ctx.Err())
		}
	}
}

// eachResolver runs f, in a parallel subtest per resolver recipe, on a
// virtual-clock cluster of its own, with the resolver of that recipe for
// service "<prefix>-<recipe>" and a client for its registrars.
func eachResolver(t *testing.T, prefix string, f func(t *testing.T, ctx context.Context, service string, reg *clientv3.Client, res discovery.Resolver)) {
	for _, rr := range discovery.Resolvers() {
		t.Run(rr.Name, func(t *testing.T) {
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				service := prefix + "-" + rr.Name
				reg := clustertest.Client(t, c, "reg-"+rr.Name)
				res := resolve(t, rr.Name, clustertest.Client(t, c, "res-"+rr.Name), service)
				f(t, clustertest.Context(t), service, reg, res)
			})
		})
	}
}
