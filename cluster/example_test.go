package cluster_test

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// A follower cut off from the rest of a three-member cluster cannot serve a
// linearizable read; when the cut heals it can again.
//
// The example runs a cluster on the real clock: an Example has no
// *testing.T, so it cannot enter a synctest bubble. Its deadline stretches
// with the machine's load (patience.Scale).
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	lead, _ := c.Leader(ctx)
	var follower *cluster.Member
	for _, m := range c.Members() {
		if m != lead {
			follower = m
			break
		}
	}
	cli, _ := c.NewClient("reader", cluster.ClientConfig{Members: []string{follower.Name()}})
	writer, _ := c.Client("writer")
	writer.Put(ctx, "greeting", "hello")

	// Cut the follower off from both peers; the client still reaches it.
	for _, m := range c.Members() {
		if m != follower {
			c.SetLinks(follower.Name(), m.Name(), cluster.Blackholed())
		}
	}
	// However long a slow machine takes, the read cannot succeed: the
	// deadline bounds only how long the example waits to see it fail.
	rctx, rcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = cli.Get(rctx, "greeting")
	rcancel()
	fmt.Println("read while cut off fails:", err != nil)

	c.HealAll()
	for {
		resp, err := cli.Get(ctx, "greeting")
		if err == nil {
			fmt.Println("read after heal:", string(resp.Kvs[0].Value))
			break
		}
	}
	// Output:
	// read while cut off fails: true
	// read after heal: hello
}
