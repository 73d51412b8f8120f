package discovery_test

import (
	"context"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/resolver"

	"github.com/etcdsim/etcdsim/discovery"
)

// TestClientConnsHaveASetBeforeItShows checks the order every resolver
// here keeps: a set reaches each gRPC ClientConn built from the resolver
// before State or Observe shows it, so a caller that waited for a set
// knows the balancer has it.
func TestClientConnsHaveASetBeforeItShows(t *testing.T) {
	eachResolver(t, "handoff", func(t *testing.T, ctx context.Context, service string, reg *clientv3.Client, res discovery.Resolver) {
		cc := &orderCC{res: res}
		r, err := res.Build(resolver.Target{URL: url.URL{Scheme: discovery.Scheme, Path: "/" + service}}, cc, resolver.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()

		opts := discovery.Options{TTL: 5 * time.Second}
		x := register(t, ctx, "keepalive", reg, service, "10.0.0.1:1", opts)
		waitState(t, ctx, res, "x", hasAddrs("10.0.0.1:1"))
		register(t, ctx, "keepalive", reg, service, "10.0.0.2:1", opts)
		waitState(t, ctx, res, "x and y", hasAddrs("10.0.0.1:1", "10.0.0.2:1"))
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		waitState(t, ctx, res, "y alone", hasAddrs("10.0.0.2:1"))

		cc.mu.Lock()
		defer cc.mu.Unlock()
		if len(cc.early) > 0 {
			t.Errorf("the resolver showed these sets before the ClientConn had them: %v", cc.early)
		}
		if want := []string{"10.0.0.2:1"}; !slices.Equal(cc.last, want) {
			t.Errorf("the ClientConn was last handed %v, want %v", cc.last, want)
		}
		t.Logf("sets handed: %d", cc.handed)
	})
}

// orderCC is a gRPC ClientConn that notes, for each set it is handed,
// whether the resolver already showed that set. Its other methods are
// not called by the resolvers here.
type orderCC struct {
	resolver.ClientConn
	res discovery.Resolver

	mu     sync.Mutex
	last   []string   // the set last handed
	early  [][]string // sets the resolver showed before handing them
	handed int
}

func (c *orderCC) UpdateState(s resolver.State) error {
	var addrs []string
	for _, e := range s.Endpoints {
		for _, a := range e.Addresses {
			addrs = append(addrs, a.Addr)
		}
	}
	slices.Sort(addrs)
	shown := c.res.State()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handed++
	if !slices.Equal(addrs, c.last) && slices.Equal(shown.Addrs(), addrs) {
		c.early = append(c.early, addrs)
	}
	c.last = addrs
	return nil
}
