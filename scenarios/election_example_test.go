package scenarios_test

import (
	"context"
	"fmt"

	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/scenarios"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Your own election plugs into the ready-made scenarios by filling in an
// election.Recipe. Here "ours" wraps the rechecked recipe; the
// pause-leader scenario pauses its first leader right after it wins, past
// its TTL. Its Done closes before anyone else can win, so there is one
// leader at a time; it wakes up between its look at Done and its write,
// and the term, its fencing token, refuses the late write.
func ExampleElectionSafety() {
	ours := election.Recipe{Name: "ours", Summary: "our election",
		New: func(cli *clientv3.Client, prefix string, opts election.Options) (election.Elector, error) {
			return election.NewRechecked(cli, prefix, opts)
		}}
	for _, s := range scenarios.ElectionSafety(ours) {
		if s.Name != "election/ours/pause-leader" {
			continue
		}
		res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(s.Name, "met:", res.Met)
		fmt.Println("stale writes refused:", res.Checks[1].Metrics["stale_rejected"] > 0)
	}
	// Output:
	// election/ours/pause-leader met: true
	// stale writes refused: true
}
