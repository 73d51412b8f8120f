package scenarios_test

import (
	"context"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// BenchmarkLockLoopRecording measures what recording costs a lock loop:
// one client locks and unlocks a mutex, each round once with every
// acquire and release recorded (with a fault Env observing the recorder)
// and once without, alternating so that both see the same machine. It
// reports the mean round of each and the overhead of recording in percent.
//
// It runs on the real clock: what it measures is the wall time of a round
// over loopback sockets, and in a bubble time.Now would read the virtual
// clock, which stands still while the recorder works. Its rounds have no
// deadline, so a long -benchtime runs to its end.
func BenchmarkLockLoopRecording(b *testing.B) {
	ctx := b.Context()
	c := cluster.New(b, cluster.Config{})
	cli, err := c.Client("c1")
	if err != nil {
		b.Fatal(err)
	}
	r, err := lock.Lookup("mutex")
	if err != nil {
		b.Fatal(err)
	}
	l, err := r.New(cli, "bench", lock.Options{TTL: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	rec := checker.NewRecorder(checker.NewClock())
	faults.NewEnv(c, faults.Config{Recorder: rec})
	round := func(record bool) time.Duration {
		start := time.Now()
		var p *checker.Pending
		if record {
			p = rec.Invoke(ctx, "c1", checker.KindAcquire, "bench", checker.Input{})
		}
		h, err := l.Lock(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if record {
			p.OK(ctx, checker.Output{Token: h.Token()})
			p = rec.Invoke(ctx, "c1", checker.KindRelease, "bench", checker.Input{})
		}
		if err := h.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
		if record {
			p.OK(ctx, checker.Output{})
		}
		return time.Since(start)
	}
	round(true) // warm up the session's path
	var with, without time.Duration
	n := 0
	for b.Loop() {
		with += round(true)
		without += round(false)
		n++
	}
	b.ReportMetric(float64(with.Microseconds())/float64(n), "µs/round-recorded")
	b.ReportMetric(float64(without.Microseconds())/float64(n), "µs/round-unrecorded")
	b.ReportMetric(100*(float64(with)-float64(without))/float64(without), "overhead-%")
}

// BenchmarkCheckersLongRun measures the checkers on the history of a
// 60-second run of five clients locking a mutex under the standard fault
// mix: the run happens once, the checkers b.N times.
func BenchmarkCheckersLongRun(b *testing.B) {
	s := scenarios.LockSafety(mustLockRecipe(b, "mutex"))[0]
	s.Workload.Clients = 5
	s.Workload.Duration = scenarios.Duration(60 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := scenarios.Run(ctx, s, scenarios.Options{})
	if err != nil {
		b.Fatal(err)
	}
	h := res.History()
	b.ResetTimer()
	for b.Loop() {
		for _, c := range scenarios.DefaultCheckers(scenarios.FamilyLock) {
			c.Run(h, s.Workload.TTL.D())
		}
	}
	b.ReportMetric(float64(len(h.Ops)), "ops")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/check-all")
}

func mustLockRecipe(tb testing.TB, name string) lock.Recipe {
	tb.Helper()
	r, err := lock.Lookup(name)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
