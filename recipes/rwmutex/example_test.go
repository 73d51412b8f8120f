package rwmutex_test

import (
	"context"
	"fmt"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
)

// Two readers hold the lock together; a writer waits until both have let
// go, and then holds it alone.
//
// The example runs a cluster on the real clock (an Example has no
// *testing.T, so it cannot enter a synctest bubble). So that a slow
// machine changes only how long it takes, never what it prints, its
// deadline stretches with the machine's load (patience.Scale), its leases
// are long enough to be renewed in time on a loaded machine, and it waits
// for the writer's request to reach etcd rather than for time to pass.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	opts := lock.Options{TTL: 10 * time.Second}
	var lockers []rwmutex.Locker
	for _, name := range []string{"r1", "r2", "w"} {
		cli, _ := c.Client(name)
		l, err := rwmutex.NewChecked(cli, "config", opts)
		if err != nil {
			log.Fatal(err)
		}
		lockers = append(lockers, l)
	}
	h1, err := lockers[0].RLock(ctx)
	if err != nil {
		log.Fatal(err)
	}
	h2, err := lockers[1].RLock(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("r1 and r2 read together")

	wrote := make(chan lock.Held)
	go func() {
		h, err := lockers[2].Lock(ctx)
		if err != nil {
			log.Fatal(err)
		}
		wrote <- h
	}()
	// The writer's request is in etcd once its key joins the readers'
	// under the lock's prefix; from then on it waits for them.
	observer, _ := c.Client("observer")
	if err := waitKeys(ctx, observer, rwmutex.DefaultPrefix+"config", 3); err != nil {
		log.Fatal(err)
	}
	select {
	case <-wrote:
		fmt.Println("w holds while readers do: wrong")
	default:
		fmt.Println("w waits for the readers")
	}
	fmt.Println("r1 unlocks:", h1.Unlock(ctx))
	fmt.Println("r2 unlocks:", h2.Unlock(ctx))
	hw := <-wrote
	fmt.Println("w holds the lock alone")
	fmt.Println("w unlocks:", hw.Unlock(ctx))
	// Output:
	// r1 and r2 read together
	// w waits for the readers
	// r1 unlocks: <nil>
	// r2 unlocks: <nil>
	// w holds the lock alone
	// w unlocks: <nil>
}

// waitKeys waits until at least n keys exist under prefix, watching the
// prefix between reads.
func waitKeys(ctx context.Context, cli *clientv3.Client, prefix string, n int64) error {
	for {
		resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			return err
		}
		if resp.Count >= n {
			return nil
		}
		wctx, stop := context.WithCancel(ctx)
		<-cli.Watch(wctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
		stop()
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("waiting for %d keys under %s, have %d: %w", n, prefix, resp.Count, err)
		}
	}
}
