package checker

import (
	"math/rand/v2"
	"testing"
	"time"
)

// benchTxns judges h with check, which must find it ok, and reports the
// time per check and the txns judged per second.
func benchTxns(b *testing.B, h History, check func(History) Result) {
	b.Logf("%d txns", len(h.Ops))
	for b.Loop() {
		if res := check(h); res.Verdict != VerdictOK {
			b.Fatalf("%s: %s", res.Verdict, res.Summary)
		}
	}
	perCheck := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(perCheck, "s/check")
	b.ReportMetric(float64(len(h.Ops))/perCheck, "txns/s")
}

// genBankN generates a bank history of about n txns by 10 clients.
func genBankN(n int) History {
	return genBank(rand.New(rand.NewPCG(1, 2)), 10, 5, time.Duration(n)*6*time.Millisecond)
}

func BenchmarkSerializable10kTxns(b *testing.B) {
	benchTxns(b, genBankN(10_000), func(h History) Result { return Serializable(h, SerializableOptions{}) })
}

// A 10-minute history of 10 clients, one txn every 6ms on average.
func BenchmarkSerializable10Min10Clients(b *testing.B) {
	h := genBank(rand.New(rand.NewPCG(1, 2)), 10, 5, 10*time.Minute)
	benchTxns(b, h, func(h History) Result { return Serializable(h, SerializableOptions{}) })
}

func BenchmarkBankTotal10Min10Clients(b *testing.B) {
	h := genBank(rand.New(rand.NewPCG(1, 2)), 10, 5, 10*time.Minute)
	benchTxns(b, h, func(h History) Result { return BankTotal(h, BankOptions{}) })
}
