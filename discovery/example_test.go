package discovery_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/discovery"
)

// Three echo instances register under "echo"; a client dials
// etcd:///echo and its calls go round the three. One instance leaves, and
// the calls go round the two that are left.
func Example() {
	ctx := context.Background()
	c, err := cluster.Start(ctx, cluster.Config{})
	must(err)
	defer c.Close()
	cli, err := c.Client("app")
	must(err)

	var regs []discovery.Registrar
	for _, name := range []string{"ant", "bee", "cat"} {
		b, err := discovery.StartBackend(name)
		must(err)
		defer b.Close()
		reg, err := discovery.NewKeepAlive(cli, "echo", b.Addr(), discovery.Options{TTL: 5 * time.Second})
		must(err)
		defer reg.Close()
		must(reg.Register(ctx))
		regs = append(regs, reg)
	}

	res, err := discovery.NewRelisting(cli, "echo", discovery.Options{})
	must(err)
	defer res.Close()
	cc, err := discovery.Dial(res, "echo")
	must(err)
	defer cc.Close()

	// answered makes six calls and names the instances that answered.
	answered := func() []string {
		seen := map[string]bool{}
		for range 6 {
			who, _, err := discovery.Echo(ctx, cc, "hello")
			must(err)
			seen[who] = true
		}
		return slices.Sorted(maps.Keys(seen))
	}
	// Until every connection is up, round robin skips the ones that are not.
	who := answered()
	for len(who) < 3 {
		who = answered()
	}
	fmt.Println("answered by", who)

	must(regs[1].Close()) // bee leaves
	for s := range res.Observe(ctx) {
		if len(s.Endpoints) == 2 {
			break
		}
	}
	// The balancer takes the resolver's new list a moment after the
	// resolver has it, and bee still serves: a call or two may reach it.
	who = answered()
	for slices.Contains(who, "bee") || len(who) < 2 {
		who = answered()
	}
	fmt.Println("answered by", who)

	// Output:
	// answered by [ant bee cat]
	// answered by [ant cat]
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
