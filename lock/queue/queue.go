// Package queue holds queue recipes on etcd, built on the unmodified
// client/v3/experimental/recipes.Queue, behind one small interface so
// that a user's own queue can be judged the same way.
//
// etcd's Queue puts each item under a key named by the time it was
// enqueued, and a consumer claims the oldest by deleting it with a
// transaction that compares its mod revision: delivery is at most once. A
// Dequeue whose delete committed but whose answer was lost has taken the
// item from everyone and given it to no one (see TestLostDequeueAnswer).
//
//	q, err := queue.New(cli, "jobs")
//	err = q.Enqueue(ctx, "job-1")
//	item, err := q.Dequeue(ctx) // blocks until an item comes or ctx ends
package queue

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"
	recipes "go.etcd.io/etcd/client/v3/experimental/recipes"

	"github.com/etcdsim/etcdsim/internal/ctxview"
	"github.com/etcdsim/etcdsim/internal/recipe"
)

// Sentinel errors.
var (
	// ErrBadName is returned for a queue asked for with an empty name.
	ErrBadName = errors.New("queue: empty queue name")
	// ErrBadItem is returned by Enqueue for an empty item.
	ErrBadItem = errors.New("queue: empty item")
	// ErrUnknownRecipe is returned by Lookup for a name not registered.
	ErrUnknownRecipe = errors.New("queue: no recipe named")
)

// Queue is a named queue of one client. Every call takes a context and
// returns once it ends.
type Queue interface {
	Enqueue(ctx context.Context, item string) error
	// Dequeue takes the oldest item, waiting for one if there is none.
	Dequeue(ctx context.Context) (string, error)
	// Pending reads, linearizably, how many items wait: a drain's look.
	Pending(ctx context.Context) (int, error)
}

// NewQueue makes the Queue of one client for the queue called name.
type NewQueue func(cli *clientv3.Client, name string) (Queue, error)

// Recipe is a queue implementation scenarios can run by name, of the
// registry type every family shares.
type Recipe = recipe.Recipe[NewQueue]

var registry = recipe.NewRegistry(recipe.Queue,
	Recipe{Name: "upstream", New: func(cli *clientv3.Client, name string) (Queue, error) { return New(cli, name) },
		Summary: "experimental/recipes.Queue, unmodified, run under the caller's context"},
)

// Recipes returns every registered recipe.
func Recipes() []Recipe { return registry.All() }

// Lookup returns the recipe called name, or an error wrapping
// ErrUnknownRecipe that lists the names there are.
func Lookup(name string) (Recipe, error) {
	r, err := registry.Lookup(name)
	if err != nil {
		return Recipe{}, recipe.Unknown("queue: ", ErrUnknownRecipe, err)
	}
	return r, nil
}

// DefaultPrefix is where queue keys live.
const DefaultPrefix = "etcdsim/queue/"

// Upstream is etcd's recipes.Queue on a ctxview.View of the client: each
// call runs the recipe unmodified, its requests bound to the call's
// context. Safe for concurrent use: each call has a view of its own.
type Upstream struct {
	cli      *clientv3.Client
	pfx      string
	requests atomic.Int64
}

var _ Queue = (*Upstream)(nil)

// New returns the upstream recipe's Queue for the queue called name.
func New(cli *clientv3.Client, name string) (*Upstream, error) {
	if cli == nil {
		return nil, fmt.Errorf("queue: %q: nil client", name)
	}
	if name == "" {
		return nil, ErrBadName
	}
	return &Upstream{cli: cli, pfx: DefaultPrefix + name}, nil
}

func (q *Upstream) queue(ctx context.Context) *recipes.Queue {
	v := ctxview.New(q.cli, &q.requests)
	v.Use(ctx)
	return recipes.NewQueue(v.Client(), q.pfx)
}

// Enqueue puts item on the queue.
func (q *Upstream) Enqueue(ctx context.Context, item string) error {
	if item == "" {
		return fmt.Errorf("%w: queue %s", ErrBadItem, q.pfx)
	}
	if err := q.queue(ctx).Enqueue(item); err != nil {
		return fmt.Errorf("queue: %s: enqueue %q: %w", q.pfx, item, err)
	}
	return nil
}

// Dequeue takes the oldest item. The recipe dereferences the event its
// wait returns, and a wait cut short (its context ended, or its watch was
// compacted) returns none: that panic is turned into ctx's error, or an
// error saying so.
func (q *Upstream) Dequeue(ctx context.Context) (item string, err error) {
	defer func() {
		if p := recover(); p != nil {
			if ctx.Err() != nil {
				item, err = "", fmt.Errorf("queue: %s: dequeue: %w", q.pfx, context.Cause(ctx))
				return
			}
			item, err = "", fmt.Errorf("queue: %s: dequeue: the recipe's wait ended without an event (a compacted watch?): %v", q.pfx, p)
		}
	}()
	item, err = q.queue(ctx).Dequeue()
	if err != nil {
		return "", fmt.Errorf("queue: %s: dequeue: %w", q.pfx, err)
	}
	return item, nil
}

// Pending counts the items waiting, with a linearizable read.
func (q *Upstream) Pending(ctx context.Context) (int, error) {
	resp, err := q.cli.Get(ctx, q.pfx+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("queue: %s: pending: %w", q.pfx, err)
	}
	return int(resp.Count), nil
}
