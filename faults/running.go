package faults

import (
	"context"
	"fmt"
)

// Running is a schedule running in a goroutine of its own, started by
// Start.
type Running struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error // set before done is closed
}

// Start validates s against env's cluster and runs it in a goroutine.
// When Start returns without error, the schedule's triggers are armed: a
// Notify from then on fires them. A panic in the schedule is healed like
// any end and reported by Wait as an error.
func Start(ctx context.Context, env *Env, s Schedule) (*Running, error) {
	ctx, cancel := context.WithCancel(ctx)
	var run func() error
	switch tl := s.(type) {
	case Timeline:
		r, err := tl.prepare(ctx, env)
		if err != nil {
			cancel()
			return nil, err
		}
		run = r
	case *Timeline:
		r, err := tl.prepare(ctx, env)
		if err != nil {
			cancel()
			return nil, err
		}
		run = r
	default:
		if err := s.Validate(env.c); err != nil {
			cancel()
			return nil, err
		}
		run = func() error { return s.Run(ctx, env) }
	}
	r := &Running{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer cancel()
		defer func() {
			if p := recover(); p != nil {
				r.err = fmt.Errorf("faults: the schedule panicked (its faults were healed): %v", p)
			}
		}()
		r.err = run()
	}()
	return r, nil
}

// Wait waits until the schedule is over and healed and returns its error.
func (r *Running) Wait() error {
	<-r.done
	return r.err
}

// Stop ends the schedule early, waits until every fault is healed, and
// returns the run's error. It is safe to call more than once.
func (r *Running) Stop() error {
	r.cancel()
	return r.Wait()
}
