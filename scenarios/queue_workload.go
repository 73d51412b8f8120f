package scenarios

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/recipes/queue"
)

// queueRecipe returns the scenario's queue recipe.
func (s Scenario) queueRecipe() (queue.Recipe, error) {
	return recipeOf(s.Workload.Queue, s.Workload.Recipe, queue.Lookup)
}

// queueStream separates each producer's priorities from every other
// random choice drawn from the run's seed.
const queueStream = 0x7072696f72697479

// queueWorkload runs the queue family: clients c1…cProducers enqueue
// unique items ("c1-0", "c1-1", …) for the first half of the run,
// each of a priority drawn from 0 to Priorities-1 if Priorities is set;
// the others dequeue to the end, taking the next item at once: Think
// paces the producers only. A call that does not return within the
// patience is recorded as unknown: an enqueue so may or may not have put
// its item, and a dequeue so delivered nothing, whatever it did to the
// queue. Once the producers are done, a consumer whose dequeue failed
// looks at the queue; when it sees it empty it records the look (a
// dequeue with Output.Empty, what QueueDelivery judges loss after),
// dequeues once more — a recipe that settles a claim whose answer was
// lost does so then — and stops.
func (w *world) queueWorkload(ctx context.Context) error {
	r, err := w.s.queueRecipe()
	if err != nil {
		return err
	}
	wl := w.s.Workload
	pctx, cancel := context.WithTimeout(ctx, wl.Duration.D()/2)
	defer cancel()
	produced := make(chan struct{})
	var producers, consumers errgroup.Group
	for i := 1; i <= wl.Clients; i++ {
		name := fmt.Sprintf("c%d", i)
		if i <= wl.Producers {
			producers.Go(func() error { return w.producer(pctx, r, name) })
		} else {
			consumers.Go(func() error { return w.consumer(ctx, r, name, produced) })
		}
	}
	perr := producers.Wait()
	close(produced)
	return errors.Join(perr, consumers.Wait())
}

// queueOf makes client name's Queue, on a client made anew after a crash.
func (w *world) queueOf(ctx context.Context, r queue.Recipe, name string) (queue.Queue, error) {
	cli, err := w.client(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	wl := w.s.Workload
	q, err := construct(ctx, w, FamilyQueue, r.Name, name, "queue.Queue", func() (queue.Queue, error) {
		return r.New(cli, wl.Key)
	})
	if err != nil {
		return nil, err
	}
	if _, ok := q.(queue.PriorityQueue); wl.Priorities > 0 && !ok {
		return nil, fmt.Errorf("%w: queue recipe %q: workload.priorities is %d but its Queue (%T) is no queue.PriorityQueue",
			ErrRecipe, r.Name, wl.Priorities, q)
	}
	return q, nil
}

// producer is one producing client of the queue workload.
func (w *world) producer(ctx context.Context, r queue.Recipe, name string) error {
	wl := w.s.Workload
	q, err := w.queueOf(ctx, r, name)
	if err != nil {
		return ignoreEnd(ctx, err)
	}
	h := fnv.New64a()
	h.Write([]byte(name)) //nolint:errcheck // a hash does not fail
	rng := w.s.Seed.Rand(queueStream ^ h.Sum64())
	think := w.thinker(name)
	for n := 0; wl.Ops == 0 || n < wl.Ops; n++ {
		item := fmt.Sprintf("%s-%d", name, n)
		var prio uint16
		if wl.Priorities > 0 {
			prio = uint16(rng.IntN(wl.Priorities))
		}
		err := w.step(ctx, name, func() error {
			p := w.env.Recorder().Invoke(ctx, name, checker.KindEnqueue, wl.Key, checker.Input{Value: item, Priority: int64(prio)})
			ectx, cancel := context.WithTimeout(ctx, wl.Patience.D())
			defer cancel()
			var err error
			if pq, ok := q.(queue.PriorityQueue); ok && wl.Priorities > 0 {
				err = pq.EnqueuePriority(ectx, item, prio)
			} else {
				err = q.Enqueue(ectx, item)
			}
			if err != nil {
				p.Unknown(ctx, err)
				return nil
			}
			return p.OK(ctx, checker.Output{})
		})
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if q, err = w.queueOf(ctx, r, name); err != nil {
				return ignoreEnd(ctx, err)
			}
			continue
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := sleep(ctx, think()); err != nil {
			return nil
		}
	}
	return nil
}

// consumer is one consuming client of the queue workload.
func (w *world) consumer(ctx context.Context, r queue.Recipe, name string, produced <-chan struct{}) error {
	wl := w.s.Workload
	q, err := w.queueOf(ctx, r, name)
	if err != nil {
		return ignoreEnd(ctx, err)
	}
	for {
		failed := false
		err := w.step(ctx, name, func() error {
			var err error
			failed, err = w.dequeue(ctx, r, name, q, wl.Patience.D())
			return err
		})
		if err == nil && failed && closed(produced) {
			var empty bool
			if empty, err = w.drained(ctx, name, q); err == nil && empty {
				err = w.step(ctx, name, func() error {
					_, err := w.dequeue(ctx, r, name, q, min(wl.Patience.D(), time.Second))
					return err
				})
				return ignoreEnd(ctx, err)
			}
		}
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if q, err = w.queueOf(ctx, r, name); err != nil {
				return ignoreEnd(ctx, err)
			}
			continue
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
	}
}

// dequeue is one recorded Dequeue, given patience d; failed says it
// returned an error.
func (w *world) dequeue(ctx context.Context, r queue.Recipe, name string, q queue.Queue, d time.Duration) (failed bool, err error) {
	p := w.env.Recorder().Invoke(ctx, name, checker.KindDequeue, w.s.Workload.Key, checker.Input{})
	dctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	item, err := q.Dequeue(dctx)
	switch {
	case err != nil:
		p.Unknown(ctx, err)
		return true, nil
	case item == "":
		err := fmt.Errorf("%w: queue recipe %q: Dequeue returned an empty item and no error for client %s", ErrRecipe, r.Name, name)
		p.Fail(ctx, err)
		return true, err
	}
	return false, p.OK(ctx, checker.Output{Value: item})
}

// drained looks at the queue: a dequeue that took nothing and saw it
// empty (recorded ok with Output.Empty), or saw items (recorded
// failed: it took none).
func (w *world) drained(ctx context.Context, name string, q queue.Queue) (bool, error) {
	err := w.step(ctx, name, func() error { return nil })
	if err != nil {
		return false, err
	}
	p := w.env.Recorder().Invoke(ctx, name, checker.KindDequeue, w.s.Workload.Key, checker.Input{})
	lctx, cancel := context.WithTimeout(ctx, w.s.Workload.Patience.D())
	defer cancel()
	n, err := q.Pending(lctx)
	switch {
	case err != nil:
		p.Fail(ctx, err)
		return false, nil
	case n > 0:
		p.Fail(ctx, fmt.Errorf("%d items wait", n))
		return false, nil
	}
	return true, p.OK(ctx, checker.Output{Empty: true})
}
