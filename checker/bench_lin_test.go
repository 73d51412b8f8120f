package checker

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkLockLinearizable(b *testing.B) {
	h := genLockLoad(rand.New(rand.NewPCG(3, 4)), 10, 10, 500, false)
	benchCheck(b, "ops", h, func(h History) Result { return LockLinearizable(h, LinOptions{}).Result })
}

func BenchmarkRegisterJepsen(b *testing.B) {
	cases := jepsenCases(b)
	hs := make([]History, len(cases))
	for i, c := range cases {
		hs[i] = readJepsen(b, c.path)
	}
	for b.Loop() {
		agree := 0
		for i, h := range hs {
			res := RegisterLinearizable(h, LinOptions{})
			if (res.Verdict == VerdictOK) == cases[i].linearizable && res.Verdict != VerdictUnknown {
				agree++
			}
		}
		if agree != len(hs) {
			b.Fatalf("%d of %d verdicts agree", agree, len(hs))
		}
	}
	perRun := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(perRun, "s/50-histories")
	b.ReportMetric(float64(len(hs)), "histories")
}
