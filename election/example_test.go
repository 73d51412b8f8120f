package election_test

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// Alice and Bob run for leader of the same job. Alice wins, Bob waits;
// Alice announces what she is doing, steps down, and Bob takes over with a
// higher term.
//
// The example runs a cluster on the real clock: an Example has no
// *testing.T, so it cannot enter a synctest bubble. Its deadline stretches
// with the machine's load (patience.Scale).
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{HeartbeatInterval: patience.Heartbeat()}) // leaders that last on a loaded machine
	must(err)
	defer c.Close()
	aliceCli, err := c.Client("alice")
	must(err)
	bobCli, err := c.Client("bob")
	must(err)

	opts := election.Options{TTL: 5 * time.Second}
	alice, err := election.NewRechecked(aliceCli, "/jobs/nightly", opts)
	must(err)
	defer alice.Close()
	bob, err := election.NewServer(bobCli, "/jobs/nightly", opts) // recipes share elections
	must(err)
	defer bob.Close()

	la, err := alice.Campaign(ctx, "alice")
	must(err)
	fmt.Println("alice leads")

	bobLeads := make(chan election.Leadership)
	go func() {
		lb, err := bob.Campaign(ctx, "bob") // waits for alice to go
		must(err)
		bobLeads <- lb
	}()

	must(la.Proclaim(ctx, "alice: compacting"))
	info, err := bob.(election.LeaderReader).Leader(ctx) // every recipe here reads the leader; a user's need not
	must(err)
	fmt.Println("bob sees:", info.Value)

	must(la.Resign(ctx))
	lb := <-bobLeads
	fmt.Println("bob leads; the term grew:", lb.Term() > la.Term())
	must(lb.Resign(ctx))

	// Output:
	// alice leads
	// bob sees: alice: compacting
	// bob leads; the term grew: true
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
