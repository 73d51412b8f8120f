package queue

import (
	"context"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
)

// testCluster has latency on every link: etcd's Queue names its keys by
// time.Now().UnixNano(), which on the virtual clock stands still between
// requests that take no time.
var testCluster = cluster.Config{Latency: time.Millisecond}

func newQueue(t *testing.T, recipe string, cli *clientv3.Client) Queue {
	t.Helper()
	r, err := Lookup(recipe)
	if err != nil {
		t.Fatal(err)
	}
	q, err := r.New(cli, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestBadInput(t *testing.T) {
	if _, err := Lookup("claimd"); !errors.Is(err, ErrUnknownRecipe) {
		t.Errorf("Lookup(claimd) = %v, want ErrUnknownRecipe", err)
	}
	for _, r := range Recipes() {
		if _, err := r.New(nil, "q"); err == nil {
			t.Errorf("%s: New(nil client): no error", r.Name)
		}
		if _, err := r.New(&clientv3.Client{}, ""); !errors.Is(err, ErrBadName) {
			t.Errorf("%s: New(empty name) = %v, want ErrBadName", r.Name, err)
		}
		q, err := r.New(&clientv3.Client{}, "q")
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Enqueue(context.Background(), ""); !errors.Is(err, ErrBadItem) {
			t.Errorf("%s: empty item: %v, want ErrBadItem", r.Name, err)
		}
	}
}

// Items come out once each, oldest first; a Dequeue on an empty queue
// waits for the next Enqueue, and one whose context ends returns.
func TestDelivery(t *testing.T) {
	for _, recipe := range []string{"claimed", "at-most-once"} {
		t.Run(recipe, func(t *testing.T) {
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, testCluster)
				ctx := clustertest.Context(t)
				p := newQueue(t, recipe, clustertest.Client(t, c, "p"))
				q := newQueue(t, recipe, clustertest.Client(t, c, "c"))
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
		})
	}
}

// The lowest priority number comes out first, then the order of arrival;
// unpadded-priority serves 10 before 2.
func TestPriorityOrder(t *testing.T) {
	for _, tt := range []struct {
		recipe string
		want   []string
	}{
		{recipe: "priority-claimed", want: []string{"p2", "p2-again", "p10"}},
		{recipe: "priority-at-most-once", want: []string{"p2", "p2-again", "p10"}},
		{recipe: "unpadded-priority", want: []string{"p10", "p2", "p2-again"}},
	} {
		t.Run(tt.recipe, func(t *testing.T) {
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, testCluster)
				ctx := clustertest.Context(t)
				q := newQueue(t, tt.recipe, clustertest.Client(t, c, "c")).(PriorityQueue)
				for _, e := range []struct {
					item string
					pr   uint16
				}{{"p10", 10}, {"p2", 2}, {"p2-again", 2}} {
					if err := q.EnqueuePriority(ctx, e.item, e.pr); err != nil {
						t.Fatal(err)
					}
				}
				for _, want := range tt.want {
					if got, err := q.Dequeue(ctx); err != nil || got != want {
						t.Fatalf("Dequeue = %q, %v; want %q", got, err, want)
					}
				}
			})
		})
	}
}

// What the faults vocabulary calls losing responses, aimed at Dequeue's
// claim: the claim commits, its answer never comes, and Dequeue fails.
// With etcd's Queue the item is gone from the queue and was given to no
// one — QueueDelivery calls it lost. Claimed settles the claim at its next
// Dequeue and delivers the item.
func TestLostDequeueAnswer(t *testing.T) {
	for _, tt := range []struct {
		recipe    string
		delivered bool
	}{
		{recipe: "at-most-once", delivered: false},
		{recipe: "claimed", delivered: true},
	} {
		t.Run(tt.recipe, func(t *testing.T) {
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, testCluster)
				ctx := clustertest.Context(t)
				p := newQueue(t, tt.recipe, clustertest.Client(t, c, "p"))
				q := newQueue(t, tt.recipe, clustertest.Client(t, c, "c"))
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
				requests := func() int64 {
					switch q := q.(type) {
					case *etcdQueue:
						return q.requests.Load()
					case *Claimed:
						return q.requests.Load() + q.claims.Load()
					}
					t.Fatalf("no request count for %T", q)
					return 0
				}
				if cq, ok := q.(*Claimed); ok {
					cq.owner = "test" // so that its first Dequeue puts nothing before the read
				}
				dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				defer cancel()
				res := make(chan error, 1)
				start := requests()
				go func() { _, err := q.Dequeue(dctx); res <- err }()
				// etcd's Queue: the read went out and came back (a request
				// counted), the claim is on its way (another). Claimed: the
				// read came back and the claim was made.
				want := start + 2
				if _, ok := q.(*Claimed); ok {
					want = start + 1
				}
				for requests() < want {
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
				h := checker.History{Ops: []checker.Operation{
					{ID: 0, Client: "p", Kind: checker.KindEnqueue, Key: "jobs", Input: checker.Input{Value: "only"}, Call: 0, Return: 1, Outcome: checker.OutcomeOK},
					{ID: 1, Client: "c", Kind: checker.KindDequeue, Key: "jobs", Call: 2, Return: checker.Infinity, Outcome: checker.OutcomeUnknown},
					{ID: 2, Client: "p", Kind: checker.KindDequeue, Key: "jobs", Output: checker.Output{Empty: true}, Call: 3, Return: 4, Outcome: checker.OutcomeOK},
				}}
				sctx, cancel := context.WithTimeout(ctx, time.Second)
				defer cancel()
				item, err := q.Dequeue(sctx)
				switch {
				case tt.delivered && (err != nil || item != "only"):
					t.Fatalf("the next Dequeue = %q, %v; want the claimed item", item, err)
				case tt.delivered:
					h.Ops = append(h.Ops, checker.Operation{ID: 3, Client: "c", Kind: checker.KindDequeue, Key: "jobs",
						Output: checker.Output{Value: item}, Call: 5, Return: 6, Outcome: checker.OutcomeOK})
				case err == nil:
					t.Fatalf("the next Dequeue returned %q; the queue should be empty", item)
				default:
					t.Logf("Dequeue failed (%v) and the queue is empty: the item is lost to every consumer", derr)
				}
				r := checker.QueueDelivery(h, checker.QueueOptions{})
				if want := map[bool]checker.Verdict{true: checker.VerdictOK, false: checker.VerdictViolation}[tt.delivered]; r.Verdict != want {
					t.Errorf("QueueDelivery: %s (%s); want %s", r.Verdict, r.Summary, want)
				}
			})
		})
	}
}
