//go:build unix

package cluster

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkIdleVirtual starts a 3-member cluster on the virtual clock,
// lets it stand idle for 10 simulated seconds and closes it, and reports
// the process's CPU time (user and system, from getrusage) per simulated
// second of the idle spell: what the members' own ticks, heartbeats and
// timers cost a run for every second it simulates, before any client asks
// anything. At the default 10 ms heartbeat the leader sends each follower a
// heartbeat, and gets an answer, every tick; that traffic is most of it.
//
//	GOGC=400 go test -run '^$' -bench IdleVirtual -benchtime 5x ./cluster
func BenchmarkIdleVirtual(b *testing.B) {
	var idle time.Duration
	inBubbles(b, func(ctx context.Context) (map[string]time.Duration, map[string]time.Duration, error) {
		c, err := Start(ctx, Config{Clock: ClockVirtual})
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
}

// processCPU is the CPU time this process has used so far, user and system.
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
