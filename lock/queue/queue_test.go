package queue

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
)

// testCluster has latency on every link: the recipe names its keys by
// time.Now().UnixNano(), which on the virtual clock stands still between
// requests that take no time.
var testCluster = cluster.Config{Latency: time.Millisecond}

func TestBadInput(t *testing.T) {
	if _, err := Lookup("upstrem"); !errors.Is(err, ErrUnknownRecipe) {
		t.Errorf("Lookup(upstrem) = %v, want ErrUnknownRecipe", err)
	}
	if _, err := New(nil, "q"); err == nil {
		t.Error("New(nil client): no error")
	}
}

// Items come out once each, oldest first; a Dequeue on an empty queue
// waits for the next Enqueue, and one whose context ends returns.
func TestDelivery(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, testCluster)
		ctx := clustertest.Context(t)
		p, err := New(clustertest.Client(t, c, "p"), "jobs")
		if err != nil {
			t.Fatal(err)
		}
		q, err := New(clustertest.Client(t, c, "c"), "jobs")
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Enqueue(ctx, ""); !errors.Is(err, ErrBadItem) {
			t.Errorf("empty item: %v, want ErrBadItem", err)
		}
		for _, item := range []string{"a", "b"} {
			if err := p.Enqueue(ctx, item); err != nil {
				t.Fatal(err)
			}
		}
		for _, want := range []string{"a", "b"} {
			if got, err := q.Dequeue(ctx); err != nil || got != want {
				t.Fatalf("Dequeue = %q, %v; want %q", got, err, want)
			}
		}
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if _, err := q.Dequeue(wctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Dequeue of an empty queue: %v, want the deadline", err)
		}
		got := make(chan string, 1)
		go func() {
			item, err := q.Dequeue(ctx)
			if err != nil {
				t.Error(err)
			}
			got <- item
		}()
		time.Sleep(100 * time.Millisecond)
		if err := p.Enqueue(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		if item := <-got; item != "c" {
			t.Errorf("a waiting Dequeue got %q, want c", item)
		}
	})
}

// What the faults vocabulary calls losing responses after commit, aimed at
// Dequeue's claiming delete: the delete commits, its answer never comes,
// and Dequeue fails. The item is gone from the queue and was given to no
// one: etcd's Queue delivers at most once. No duplicate follows — the
// claim compares the key's mod revision, so a retry claims nothing twice.
// QueueDelivery counts the item as taken by the dequeue of unknown
// outcome, not as lost.
func TestLostDequeueAnswer(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, testCluster)
		ctx := clustertest.Context(t)
		p, err := New(clustertest.Client(t, c, "p"), "jobs")
		if err != nil {
			t.Fatal(err)
		}
		q, err := New(clustertest.Client(t, c, "c"), "jobs")
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Enqueue(ctx, "only"); err != nil {
			t.Fatal(err)
		}
		setAnswers := func(cond cluster.Condition) {
			for _, m := range c.Members() {
				if err := c.SetLink(m.Name(), "c", cond); err != nil {
					t.Fatal(err)
				}
			}
		}
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		res := make(chan error, 1)
		start := q.requests.Load()
		go func() { _, err := q.Dequeue(dctx); res <- err }()
		for q.requests.Load() < start+2 { // the read went out and came back; the claim is on its way
			time.Sleep(100 * time.Microsecond)
		}
		setAnswers(cluster.Blackholed())
		derr := <-res
		setAnswers(cluster.Healthy)
		if derr == nil {
			t.Fatal("Dequeue returned although its answer was lost")
		}
		n, err := p.Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("%d items still queued; the claim should have committed", n)
		}
		t.Logf("Dequeue failed (%v) and the queue is empty: the item is lost to every consumer", derr)

		h := checker.History{Ops: []checker.Operation{
			{ID: 0, Client: "p", Kind: checker.KindEnqueue, Key: "jobs", Input: checker.Input{Value: "only"}, Call: 0, Return: 1, Outcome: checker.OutcomeOK},
			{ID: 1, Client: "c", Kind: checker.KindDequeue, Key: "jobs", Call: 2, Return: checker.Infinity, Outcome: checker.OutcomeUnknown},
			{ID: 2, Client: "p", Kind: checker.KindDequeue, Key: "jobs", Output: checker.Output{Missing: true}, Call: 3, Return: 4, Outcome: checker.OutcomeOK},
		}}
		r := checker.QueueDelivery(h, checker.QueueOptions{})
		if r.Verdict != checker.VerdictOK || r.Metrics["taken_unseen"] != 1 {
			t.Errorf("QueueDelivery: %s, %v taken unseen; want ok and 1", r.Verdict, r.Metrics["taken_unseen"])
		}
	})
}
