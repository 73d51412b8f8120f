package cluster

import (
	"context"
	"testing"
	"time"
)

// BenchmarkMemberStart compares a member run in this process (embed) with
// one run as a member binary (Config.MemberBinaries), on the real
// clock both: start-ms is a 3-member cluster from Start to every member
// ready with an agreed leader; restart-ms is a killed follower from
// Restart to ready again. The member binary is built before the clock
// starts.
func BenchmarkMemberStart(b *testing.B) {
	for _, bc := range []struct {
		name     string
		binaries bool
	}{{"embedded", false}, {"binary", true}} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.binaries {
				if _, err := MemberBinary(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			cfg := Config{Clock: ClockReal, MemberBinaries: bc.binaries}
			var start, restart time.Duration
			for b.Loop() {
				t0 := time.Now()
				c, err := Start(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				start += time.Since(t0)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				lead, err := c.Leader(ctx)
				if err != nil {
					b.Fatal(err)
				}
				f := followers(c, lead)[0]
				if err := f.Kill(); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := f.Restart(ctx); err != nil {
					b.Fatal(err)
				}
				restart += time.Since(t1)
				cancel()
				if err := c.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(ms(start)/float64(b.N), "start-ms")
			b.ReportMetric(ms(restart)/float64(b.N), "restart-ms")
		})
	}
}
