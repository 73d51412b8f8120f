package lock_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/lock"
)

// Two workers share an invoice store guarded by a lock. The first stalls
// in the middle of its work for longer than its lease; the second takes
// over. When the first wakes up and finishes, its fencing token is too
// old: the store and the guarded etcd write both refuse it.
//
// The example runs a cluster on the real clock: an Example has no
// *testing.T, so it cannot enter a synctest bubble. Its deadline stretches
// with the machine's load (patience.Scale), and only w1's lease is short:
// w2 waits for it to expire, while w2's own lease must outlive a slow
// machine's pauses.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	cli1, _ := c.Client("w1")
	cli2, _ := c.Client("w2")
	l1, _ := lock.NewFenced(cli1, "invoices", lock.Options{TTL: 2 * time.Second})
	l2, _ := lock.NewFenced(cli2, "invoices", lock.Options{TTL: 10 * time.Second})
	var store lock.FencedResource

	h1, err := l1.Lock(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("w1 writes:", store.Write(h1.Token(), "w1", "draft"))

	c.Isolate("w1") // w1 stalls: no renewals reach etcd
	h2, err := l2.Lock(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("w2 holds with a larger token:", h2.Token() > h1.Token())
	fmt.Println("w2 writes:", store.Write(h2.Token(), "w2", "final"))

	c.Heal("w1") // w1 wakes up and carries on
	err = store.Write(h1.Token(), "w1", "draft, revised")
	fmt.Println("w1's late write is stale:", errors.Is(err, lock.ErrStaleToken))
	_, err = h1.(lock.Writer).Put(ctx, "invoice", "draft, revised")
	fmt.Println("w1's guarded put is refused:", errors.Is(err, lock.ErrNotHeld))
	fmt.Println("w1's unlock says it lost the lock:", errors.Is(h1.Unlock(ctx), lock.ErrNotHeld))
	fmt.Println("w2 unlocks:", h2.Unlock(ctx))
	// Output:
	// w1 writes: <nil>
	// w2 holds with a larger token: true
	// w2 writes: <nil>
	// w1's late write is stale: true
	// w1's guarded put is refused: true
	// w1's unlock says it lost the lock: true
	// w2 unlocks: <nil>
}

// Scenarios run recipes by name, broken ones included, and know which
// failures to expect from the registry.
func ExampleRecipes() {
	for _, r := range lock.Recipes() {
		if r.Broken {
			fmt.Printf("%-24s broken: %v\n", r.Name, r.Expect)
		} else {
			fmt.Printf("%-24s correct\n", r.Name)
		}
	}
	// Output:
	// mutex                    correct
	// v3lock                   correct
	// fenced                   correct
	// herd                     correct
	// released-marker          broken: violation of mutual-exclusion (overlap)
	// keepalive-misconfigured  broken: violation of mutual-exclusion (overlap)
	// unfenced                 broken: violation of mutual-exclusion (stale-write)
	// shared-session           broken: violation of mutual-exclusion (overlap)
	// setnx                    broken: violation of liveness (starvation)
	// delete-name              broken: violation of mutual-exclusion (overlap)
	// serializable-check       broken: violation of mutual-exclusion (overlap)
	// orphaned-waiter          broken: violation of liveness (starvation)
	// call-context-keepalive   broken: violation of mutual-exclusion (overlap)
	// missed-wakeup            broken: violation of liveness (starvation)
}
