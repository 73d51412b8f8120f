//go:build unix

package cluster

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkIdleVirtual starts a 3-member cluster on the virtual clock,
// lets it stand idle for 10 simulated seconds and closes it, and reports
// the process's CPU time (user and system, from getrusage) per simulated
// second of the idle spell: what the members' own ticks, heartbeats and
// timers cost a run for every second it simulates, before any client asks
// anything. The leader sends each follower a heartbeat, and gets an
// answer, every tick; that traffic is most of it, so the cost falls with a
// longer heartbeat: one sub-benchmark per heartbeat, the default (10ms)
// first, with the election timeout at ten heartbeats, as etcd's defaults
// have it.
//
//	GOGC=400 go test -run '^$' -bench IdleVirtual -benchtime 5x ./cluster
func BenchmarkIdleVirtual(b *testing.B) {
	for _, hb := range []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 25 * time.Millisecond} {
		b.Run(fmt.Sprintf("heartbeat=%v", hb), func(b *testing.B) {
			var idle time.Duration
			inBubbles(b, func(ctx context.Context) (map[string]time.Duration, map[string]time.Duration, error) {
				c, err := Start(ctx, Config{Clock: ClockVirtual, HeartbeatInterval: hb})
				if err != nil {
					return nil, nil, err
				}
				defer c.Close()
				c0, err := processCPU()
				if err != nil {
					return nil, nil, err
				}
				time.Sleep(10 * time.Second)
				c1, err := processCPU()
				idle += c1 - c0
				return nil, nil, err
			})
			b.ReportMetric(float64(idle.Microseconds())/1000/float64(b.N)/10, "idle-cpu-ms/sim-s")
			b.ReportMetric(float64(b.N)*10/idle.Seconds(), "sim-s/cpu-s")
		})
	}
}

// processCPU is the CPU time this process has used so far, user and system.
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
