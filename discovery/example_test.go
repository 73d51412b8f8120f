package discovery_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// Three echo instances register under "echo"; a client dials
// etcd:///echo and its calls go round the three. One instance leaves, and
// the calls go round the two that are left.
//
// The example runs its cluster on the real clock: an Example has no
// *testing.T for clustertest.Virtual, and its echo backends listen on
// loopback sockets (StartBackend), which only the real clock has. Its
// deadline stretches with the machine's load (patience.Scale).
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
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

	callAround := func(n int) {
		seen := map[string]bool{}
		for len(seen) < n {
			who, _, err := discovery.Echo(ctx, cc, "hello")
			must(err)
			seen[who] = true
		}
		fmt.Println("answered by", slices.Sorted(maps.Keys(seen)))
	}
	callAround(3)

	must(regs[1].Close()) // bee leaves
	// The resolver shows a set once it has handed it to gRPC, so once it
	// shows two, the calls go round those two.
	for s := range res.Observe(ctx) {
		if len(s.Endpoints) == 2 {
			break
		}
	}
	callAround(2)

	// Output:
	// answered by [ant bee cat]
	// answered by [ant cat]
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
