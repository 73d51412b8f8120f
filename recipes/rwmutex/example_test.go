package rwmutex_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
)

// Two readers hold the lock together; a writer waits until both have let
// go, and then holds it alone.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	opts := lock.Options{TTL: 2 * time.Second}
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
	select {
	case <-wrote:
		fmt.Println("w holds while readers do: wrong")
	case <-time.After(300 * time.Millisecond):
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
