package scenarios_test

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Your own lock plugs into the ready-made scenarios by filling in a
// lock.Recipe. Here "ours" wraps the mutex recipe; the pause-holder
// scenario pauses its first holder between its last look at its lease and
// its write, past its TTL: the fencing token refuses the late write, so the
// guarded resource stays safe and the run passes.
func ExampleLockSafety() {
	ours := lock.Recipe{Name: "ours", Summary: "our lock",
		New: func(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
			return lock.NewMutex(cli, name, opts)
		}}
	for _, s := range scenarios.LockSafety(ours) {
		if s.Name != "lock/ours/pause-holder" {
			continue
		}
		s.Workload.Duration = scenarios.Duration(6 * time.Second)
		res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(s.Name, "met:", res.Met)
		fmt.Println("stale writes refused:", res.Checks[1].Metrics["stale_rejected"] > 0)
	}
	// Output:
	// lock/ours/pause-holder met: true
	// stale writes refused: true
}
