package faults

import (
	"context"
	"errors"
	"fmt"
)

// Running is a schedule running in a goroutine of its own, started by
// Start.
type Running struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
	err    error // set before done is closed
}

// Start arms s against env (see Schedule.Arm) and runs the rest of it in a
// goroutine. When Start returns without error, the schedule's triggers are
// armed: an operation recorded from then on fires them. A panic in the
// schedule is healed like any end and reported by Wait as an error.
func Start(ctx context.Context, env *Env, s Schedule) (*Running, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	run, err := s.Arm(ctx, env)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	r := &Running{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer cancel(nil)
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

// Stop ends the schedule early, waits until every fault is healed and the
// cluster is healthy again, and returns the run's error. It is safe to
// call more than once.
func (r *Running) Stop() error {
	r.cancel(errStopped)
	return r.Wait()
}

// errStopped is the cause a schedule's context ends with when Stop ends
// it: the schedule is over, not abandoned, so the cluster is settled.
var errStopped = errors.New("faults: the schedule was stopped")
