package faults_test

import (
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
)

// BenchmarkRecordObserved measures what recording one operation — its call
// and its return — costs while an Env observes the recorder, against a
// recorder nobody observes.
func BenchmarkRecordObserved(b *testing.B) {
	for _, observed := range []bool{false, true} {
		name := "unobserved"
		if observed {
			name = "observed"
		}
		b.Run(name, func(b *testing.B) {
			ctx := b.Context()
			rec := checker.NewRecorder(checker.NewClock())
			if observed {
				faults.NewEnv(nil, faults.Config{Recorder: rec})
			}
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				rec.Invoke(ctx, "c1", checker.KindAcquire, "L", checker.Input{}).OK(ctx, checker.Output{Token: 1})
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N)/1000, "µs/op-recorded")
		})
	}
}
