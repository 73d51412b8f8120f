//go:build unix

package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkRequestVirtual starts a 3-member cluster on the virtual clock
// and sends 500 writes, then 500 linearizable reads, one after another
// from one client, and reports the process's CPU time per request of each
// kind: what a client's request costs a run beside the members' own ticks
// (BenchmarkIdleVirtual). At latency 0 a request takes no virtual time;
// the client waits a millisecond after each, as a workload does between
// its steps, so the members' clocks move (their peer streams are dialed
// on a timer) and their ticks add a little: 500 ms of idle cluster, a few
// percent of what the requests cost.
//
//	GOGC=400 go test -run '^$' -bench RequestVirtual -benchtime 5x ./cluster
func BenchmarkRequestVirtual(b *testing.B) {
	const n = 500
	var put, get time.Duration
	inBubbles(b, func(ctx context.Context) (map[string]time.Duration, map[string]time.Duration, error) {
		c, cli, err := warmVirtual(ctx)
		if err != nil {
			return nil, nil, err
		}
		defer c.Close()
		c0, err := processCPU()
		if err != nil {
			return nil, nil, err
		}
		for i := range n {
			if _, err := cli.Put(ctx, fmt.Sprintf("k%d", i%10), "v"); err != nil {
				return nil, nil, err
			}
			time.Sleep(time.Millisecond)
		}
		c1, err := processCPU()
		if err != nil {
			return nil, nil, err
		}
		for i := range n {
			if _, err := cli.Get(ctx, fmt.Sprintf("k%d", i%10)); err != nil {
				return nil, nil, err
			}
			time.Sleep(time.Millisecond)
		}
		c2, err := processCPU()
		put += c1 - c0
		get += c2 - c1
		return nil, nil, err
	})
	b.ReportMetric(float64(put.Microseconds())/float64(b.N*n), "put-cpu-µs")
	b.ReportMetric(float64(get.Microseconds())/float64(b.N*n), "get-cpu-µs")
}
