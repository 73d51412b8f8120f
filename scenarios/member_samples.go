package scenarios

import (
	"context"
	"runtime/metrics"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
)

// memberSampleEvery is how often, on the run's clock, the members'
// keep-alive goroutines are sampled for member-resources. A sample takes
// a goroutine profile of the whole process, which stops the world for a
// moment: a few per run are enough to see growth.
const memberSampleEvery = 5 * time.Second

// heapMetric is the runtime metric of the bytes the heap held live at
// the last garbage collection.
const heapMetric = "/gc/heap/live:bytes"

// sampleMembers records, when on is set, a checker.KindMemberSample of
// each running member into rec every memberSampleEvery until stop is
// called; stop takes one more sample, after the workload, waits for the
// sampler and returns. With on unset it records nothing. A sample the
// cluster cannot take (members run as programs) records nothing: the
// judge then says it had no sample.
func sampleMembers(ctx context.Context, c *cluster.Cluster, rec *checker.Recorder, on bool) (stop func()) {
	if !on {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(memberSampleEvery)
		defer tick.Stop()
		for {
			sampleOnce(ctx, c, rec)
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
		sampleOnce(context.WithoutCancel(ctx), c, rec)
	}
}

// sampleOnce records one sample of each running member.
func sampleOnce(ctx context.Context, c *cluster.Cluster, rec *checker.Recorder) {
	samples, err := c.KeepAliveGoroutines()
	if err != nil {
		return
	}
	heap := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(heap)
	bytes := int64(-1)
	if heap[0].Value.Kind() == metrics.KindUint64 {
		bytes = int64(heap[0].Value.Uint64())
	}
	for _, s := range samples {
		rec.Instant(ctx, s.Member, checker.KindMemberSample, "", checker.Input{},
			checker.Output{Values: checker.MemberResourceFigures(s.Streams, s.Loops, bytes)})
	}
}
