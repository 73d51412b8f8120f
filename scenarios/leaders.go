package scenarios

import (
	"context"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
)

// The leader observer's record: an instant operation of KindLeader by
// client LeaderClient each time the cluster's leader changes, with
// Output.Value the new leader's name, or Output.Missing when no quorum
// agrees on one. Every checker ignores it; reports draw it.
const (
	KindLeader   checker.Kind = "x-leader"
	LeaderClient              = "cluster"
)

// leaderPoll is how often the observer asks who leads; leaderAsk bounds
// one question. Cluster.Leader reads each member's own view in process,
// not over a faulted link, so a fault does not slow the question down,
// only its answer ("none") when no quorum agrees.
const (
	leaderPoll = 100 * time.Millisecond
	leaderAsk  = 50 * time.Millisecond
)

// watchLeaders records the cluster's leader into rec, once at the start
// and again on every change, until stop is called. stop waits for the
// observer to finish.
func watchLeaders(ctx context.Context, c *cluster.Cluster, rec *checker.Recorder) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		last, first := "", true
		tick := time.NewTicker(leaderPoll)
		defer tick.Stop()
		for {
			actx, acancel := context.WithTimeout(ctx, leaderAsk)
			m, err := c.Leader(actx)
			acancel()
			if ctx.Err() != nil {
				return // the run is over; a cut-short question is no answer
			}
			name := ""
			if err == nil {
				name = m.Name()
			}
			if first || name != last {
				rec.Instant(ctx, LeaderClient, KindLeader, "", checker.Input{}, checker.Output{Value: name, Missing: name == ""})
				last, first = name, false
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
