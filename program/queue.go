package program

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/recipes/queue"
)

// Queue is a queue recipe called name whose every client is a program run from
// argv (docs/protocol.md, family "queue"): enqueue, dequeue, which waits
// for an item, and pending. A program with the feature "priority" takes
// enqueue's priority, and its queue is a queue.PriorityQueue.
func Queue(name string, argv ...string) queue.Recipe { return QueueWith(name, Config{Argv: argv}) }

// QueueWith is Queue with the program's settings.
func QueueWith(name string, cfg Config) queue.Recipe {
	return queue.Recipe{
		Name:    name,
		Summary: fmt.Sprintf("a queue in a process of its own per client: %q", cfg.Argv),
		Command: cfg.Argv,
		New: func(cli *clientv3.Client, key string) (queue.Queue, error) {
			if key == "" {
				return nil, queue.ErrBadName
			}
			s, err := begin(cfg, cli, request{Family: recipe.Queue, Name: key}, nil)
			if err != nil {
				return nil, err
			}
			return &queueClient{s}, nil
		},
	}
}

// queueClient is one client's queue: its program.
type queueClient struct{ *session }

func (q *queueClient) Enqueue(ctx context.Context, item string) error {
	return q.enqueue(ctx, item, 0)
}

// EnqueuePriority needs the feature "priority".
func (q *queueClient) EnqueuePriority(ctx context.Context, item string, priority uint16) error {
	if err := q.wait(ctx); err != nil {
		return err
	}
	if !q.has("priority") {
		return fmt.Errorf("process %q: its init named no feature \"priority\", so it cannot enqueue with a priority", q.cfg.Argv)
	}
	return q.enqueue(ctx, item, int(priority))
}

func (q *queueClient) enqueue(ctx context.Context, item string, priority int) error {
	if item == "" {
		return fmt.Errorf("%w: want a non-empty item", queue.ErrBadItem)
	}
	_, err := q.op(ctx, request{Op: "enqueue", Value: item, Priority: priority})
	return err
}

func (q *queueClient) Dequeue(ctx context.Context) (string, error) {
	a, err := q.op(ctx, request{Op: "dequeue"})
	return a.Value, err
}

func (q *queueClient) Pending(ctx context.Context) (int, error) {
	a, err := q.op(ctx, request{Op: "pending"})
	return a.Count, err
}

var _ queue.PriorityQueue = (*queueClient)(nil)
