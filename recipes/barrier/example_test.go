package barrier_test

import (
	"context"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/barrier"
)

// The examples run a cluster on the real clock: an Example has no
// *testing.T, so it cannot enter a synctest bubble. Their deadlines
// stretch with the machine's load (patience.Scale), and their leases are
// long enough to be renewed in time on a loaded machine.

// Three workers start a phase together and end it together: nobody's
// Enter returns before the third has arrived, nobody's Leave before the
// third has begun to leave.
func ExampleDoubleBarrier() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	r, err := barrier.Lookup("checked")
	if err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex // guards arrived and early
	arrived, early := 0, 0
	var wg sync.WaitGroup
	for _, name := range []string{"w1", "w2", "w3"} {
		cli, err := c.Client(name)
		if err != nil {
			log.Fatal(err)
		}
		b, err := r.New(cli, "phase", 3, lock.Options{TTL: 10 * time.Second})
		if err != nil {
			log.Fatal(err)
		}
		wg.Go(func() {
			mu.Lock()
			arrived++
			mu.Unlock()
			if err := b.Enter(ctx); err != nil {
				log.Fatal(err)
			}
			mu.Lock()
			if arrived < 3 {
				early++
			}
			mu.Unlock()
			if err := b.Leave(ctx); err != nil {
				log.Fatal(err)
			}
		})
	}
	wg.Wait()
	fmt.Println("workers through the phase:", arrived)
	fmt.Println("entered before all had arrived:", early)
	// Output:
	// workers through the phase: 3
	// entered before all had arrived: 0
}

// A deployer holds a barrier while it rolls a new configuration out; a
// worker waits at it, and goes on once the barrier is released. A wait at
// a barrier nobody holds returns at once.
func ExampleBarrier() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	r, err := barrier.LookupPlain("checked")
	if err != nil {
		log.Fatal(err)
	}
	deployerCli, _ := c.Client("deployer")
	workerCli, _ := c.Client("worker")
	deployer, _ := r.New(deployerCli, "deploy")
	worker, _ := r.New(workerCli, "deploy")

	fmt.Println("wait at a barrier nobody holds:", worker.Wait(ctx))
	fmt.Println("deployer holds:", deployer.Hold(ctx))
	passed := make(chan error, 1)
	go func() { passed <- worker.Wait(ctx) }()
	select {
	case err := <-passed:
		fmt.Println("worker passed a held barrier:", err)
	case <-time.After(300 * time.Millisecond): // on a slow machine it waits longer still
		fmt.Println("worker waits while the barrier is held")
	}
	fmt.Println("deployer releases:", deployer.Release(ctx))
	fmt.Println("worker goes on:", <-passed)
	// Output:
	// wait at a barrier nobody holds: <nil>
	// deployer holds: <nil>
	// worker waits while the barrier is held
	// deployer releases: <nil>
	// worker goes on: <nil>
}
