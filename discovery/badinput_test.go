package discovery_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/discovery"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/resolver"
)

// TestBadArguments checks that every recipe refuses what it cannot run
// with, before any network call.
func TestBadArguments(t *testing.T) {
	cli := clientv3.NewCtxClient(t.Context()) // never dialled
	defer cli.Close()
	tests := []struct {
		name    string
		service string
		addr    string
		opts    discovery.Options
		want    error
	}{
		{name: "empty service", service: "", addr: "a:1", want: discovery.ErrBadService},
		{name: "empty address", service: "s", addr: "", want: discovery.ErrBadAddr},
		{name: "negative TTL", service: "s", addr: "a:1", opts: discovery.Options{TTL: -time.Second}, want: discovery.ErrBadTTL},
		{name: "TTL not whole seconds", service: "s", addr: "a:1", opts: discovery.Options{TTL: 2500 * time.Millisecond}, want: discovery.ErrBadTTL},
		{name: "defaults", service: "s", addr: "a:1"},
	}
	for _, tt := range tests {
		for _, r := range discovery.Registrars() {
			t.Run(tt.name+"/"+r.Name, func(t *testing.T) {
				reg, err := r.New(cli, tt.service, tt.addr, tt.opts)
				if !errors.Is(err, tt.want) {
					t.Fatalf("got %v, want %v", err, tt.want)
				}
				if reg != nil {
					if err := reg.Close(); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
	for _, r := range discovery.Resolvers() {
		t.Run("empty service/"+r.Name, func(t *testing.T) {
			if _, err := r.New(cli, "", discovery.Options{}); !errors.Is(err, discovery.ErrBadService) {
				t.Fatalf("got %v, want ErrBadService", err)
			}
		})
	}
	if _, err := discovery.LookupRegistrar("nope"); !errors.Is(err, discovery.ErrUnknownRecipe) {
		t.Errorf("LookupRegistrar(nope): got %v, want ErrUnknownRecipe", err)
	}
	if _, err := discovery.LookupResolver("nope"); !errors.Is(err, discovery.ErrUnknownRecipe) {
		t.Errorf("LookupResolver(nope): got %v, want ErrUnknownRecipe", err)
	}
}

// TestMisuse checks the errors of calls out of order: a second Register, a
// Register after Close, a target naming another service, a Build after
// Close. It runs on the virtual clock; a bubble cannot hold t.Run, so each
// recipe's checks are one pass of a loop, its failures named after it.
func TestMisuse(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		cli := clustertest.Client(t, c, "c1")
		ctx := clustertest.Context(t)
		for _, r := range discovery.Registrars() {
			reg := register(t, ctx, r.Name, cli, "misuse-"+r.Name, "a:1", discovery.Options{TTL: 5 * time.Second})
			if err := reg.Register(ctx); !errors.Is(err, discovery.ErrRegistered) {
				t.Errorf("%s: second Register: got %v, want ErrRegistered", r.Name, err)
			}
			if err := reg.Close(); err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			if !clustertest.Closed(reg.Done()) {
				t.Errorf("%s: Done open after Close", r.Name)
			}
			resp, err := cli.Get(ctx, reg.Key())
			if err != nil || len(resp.Kvs) != 0 {
				t.Errorf("%s: after Close, %s: %v %v; want it gone", r.Name, reg.Key(), resp.Kvs, err)
			}
			if err := reg.Register(ctx); !errors.Is(err, discovery.ErrClosed) {
				t.Errorf("%s: Register after Close: got %v, want ErrClosed", r.Name, err)
			}
		}
		for _, r := range discovery.Resolvers() {
			res := resolve(t, r.Name, cli, "svc")
			other := resolver.Target{URL: url.URL{Scheme: "etcd", Path: "/other"}}
			if _, err := res.Build(other, nil, resolver.BuildOptions{}); !errors.Is(err, discovery.ErrWrongTarget) {
				t.Errorf("%s: Build(etcd:///other): got %v, want ErrWrongTarget", r.Name, err)
			}
			if err := res.Close(); err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			own := resolver.Target{URL: url.URL{Scheme: "etcd", Path: "/svc"}}
			if _, err := res.Build(own, nil, resolver.BuildOptions{}); !errors.Is(err, discovery.ErrClosed) {
				t.Errorf("%s: Build after Close: got %v, want ErrClosed", r.Name, err)
			}
			if _, ok := <-res.Observe(context.Background()); ok {
				t.Errorf("%s: Observe after Close sent a state", r.Name)
			}
		}
	})
}

// TestTTLBelowClusterMinimum runs a cluster whose minimum lease TTL is 2s
// and asks every registrar for 1s: etcd would silently grant 2s; the
// registrars say so instead. It runs on the virtual clock, each registrar
// one pass of a loop (a bubble cannot hold t.Run).
func TestTTLBelowClusterMinimum(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{HeartbeatInterval: 100 * time.Millisecond, ElectionTimeout: time.Second})
		cli := clustertest.Client(t, c, "c1")
		ctx := clustertest.Context(t)
		for _, r := range discovery.Registrars() {
			reg, err := r.New(cli, "minttl", "a:1", discovery.Options{TTL: time.Second})
			if err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			if err := reg.Register(ctx); !errors.Is(err, discovery.ErrBadTTL) {
				t.Errorf("%s: got %v, want ErrBadTTL", r.Name, err)
			}
			reg.Close() //nolint:errcheck // only the refusal is checked
		}
	})
}
