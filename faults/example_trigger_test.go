package faults_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/patience"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// A lock workload records each step once; a trigger on the recorded
// acquire pauses the holder past its TTL, a second client takes the lock,
// and the checker sees two holders at once. Nothing reports a state change
// twice: the Env reads the recorder.
//
// The example runs a cluster on the real clock: an Example has no
// *testing.T, so it cannot enter a synctest bubble. Its deadline stretches
// with the machine's load (patience.Scale).
func ExampleOn() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, _ := cluster.Start(ctx, cluster.Config{})
	defer c.Close()
	env := faults.NewEnv(c, faults.Config{}) // it observes env.Recorder()
	rec := env.Recorder()
	run, _ := faults.Start(ctx, env, faults.Timeline{Triggers: []faults.Trigger{
		faults.On(faults.Match{Kind: checker.KindAcquire, Key: "L"}, 3*time.Second, faults.Pause(faults.LockHolder("L"))),
	}})
	hold := func(name string, holds chan<- struct{}) {
		cli, _ := c.Client(name)
		s, _ := concurrency.NewSession(cli, concurrency.WithTTL(1))
		defer s.Close()
		p := rec.Invoke(ctx, name, checker.KindAcquire, "L", checker.Input{})
		m := concurrency.NewMutex(s, "/locks/L")
		m.Lock(ctx)
		p.OK(ctx, checker.Output{Token: m.Header().Revision, Lease: int64(s.Lease())}) // c1: paused here
		if holds != nil {
			close(holds)
		}
		env.Gate().Step(ctx, name) // held while paused
		p = rec.Invoke(ctx, name, checker.KindRelease, "L", checker.Input{})
		m.Unlock(context.WithoutCancel(ctx))
		p.OK(ctx, checker.Output{})
	}
	var c1 sync.WaitGroup
	c1Holds := make(chan struct{})
	c1.Go(func() { hold("c1", c1Holds) })
	<-c1Holds
	hold("c2", nil) // acquires once c1's lease has expired, c1 still believing it holds
	run.Stop()      // heals c1's pause
	c1.Wait()
	res := checker.MutualExclusion(rec.History(), checker.MutexOptions{})
	fmt.Println(res.Verdict, res.Violations[0].Kind)
	// Output:
	// violation overlap
}
