package queue_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/recipes/queue"
)

// The examples run a cluster on the real clock: an Example has no
// *testing.T, so it cannot enter a synctest bubble. Their deadlines
// stretch with the machine's load (patience.Scale); nothing they print
// depends on timing.

// A producer and a consumer share a work queue. The claimed recipe
// delivers each item once, in the order it was enqueued, and Pending
// reads how many wait.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	pcli, _ := c.Client("producer")
	ccli, _ := c.Client("consumer")
	producer, _ := queue.NewClaimed(pcli, "jobs")
	consumer, _ := queue.NewClaimed(ccli, "jobs")

	for _, job := range []string{"resize", "upload", "notify"} {
		if err := producer.Enqueue(ctx, job); err != nil {
			log.Fatal(err)
		}
	}
	n, _ := producer.Pending(ctx)
	fmt.Println("pending:", n)
	for range 3 {
		job, err := consumer.Dequeue(ctx)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("took", job)
	}
	n, _ = producer.Pending(ctx)
	fmt.Println("pending:", n)
	// Output:
	// pending: 3
	// took resize
	// took upload
	// took notify
	// pending: 0
}

// A priority queue serves the lowest priority number first. Written as
// plain text, as the broken unpadded-priority recipe writes them,
// priorities sort as strings: 10 comes before 2.
func ExamplePriorityQueue() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	cli, _ := c.Client("worker")
	for _, name := range []string{"priority-claimed", "unpadded-priority"} {
		r, err := queue.Lookup(name)
		if err != nil {
			log.Fatal(err)
		}
		q, err := r.New(cli, name)
		if err != nil {
			log.Fatal(err)
		}
		pq := q.(queue.PriorityQueue)
		for _, p := range []uint16{10, 2, 7} {
			if err := pq.EnqueuePriority(ctx, fmt.Sprintf("p%d", p), p); err != nil {
				log.Fatal(err)
			}
		}
		fmt.Printf("%-18s", name+":")
		for range 3 {
			item, err := pq.Dequeue(ctx)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Print(" ", item)
		}
		fmt.Println()
	}
	// Output:
	// priority-claimed:  p2 p7 p10
	// unpadded-priority: p10 p2 p7
}

// The gallery: the correct recipes, then the broken ones with the
// violation each is expected to show.
func ExampleRecipes() {
	for _, r := range queue.Recipes() {
		if r.Broken {
			fmt.Printf("%-22s broken: %v\n", r.Name, r.Expect)
		} else {
			fmt.Printf("%-22s correct\n", r.Name)
		}
	}
	// Output:
	// claimed                correct
	// priority-claimed       correct
	// at-most-once           broken: violation of queue-delivery (lost-item)
	// priority-at-most-once  broken: violation of queue-delivery (lost-item)
	// unconditional-claim    broken: violation of queue-delivery (duplicate-item)
	// unpadded-priority      broken: violation of queue-delivery (priority-inversion)
}
