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

// leaderPoll is how often the observer asks who leads.
const leaderPoll = 100 * time.Millisecond

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
			if name := leaderNow(c); first || name != last {
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

// leaderNow names the member that leads now by Cluster.Leader's rule — a
// quorum of the members agrees on it and it believes it leads — or ""
// when none does. It reads each member's own view in process, not over a
// link a fault governs, so it answers at once: Cluster.Leader would wait
// for a leader to appear, and hide a short leaderless spell.
func leaderNow(c *cluster.Cluster) string {
	members := c.Members()
	votes := make(map[uint64]int)
	for _, m := range members {
		if id := m.LeaderID(); id != 0 {
			votes[id]++
		}
	}
	for _, m := range members {
		if id := m.ID(); id != 0 && votes[id] >= len(members)/2+1 && m.IsLeader() {
			return m.Name()
		}
	}
	return ""
}
