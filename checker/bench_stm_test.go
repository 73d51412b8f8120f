package checker

import (
	"math/rand/v2"
	"testing"
	"time"
)

// genBankN generates a bank history of about n txns by 10 clients.
func genBankN(n int) History {
	return genBank(rand.New(rand.NewPCG(1, 2)), 10, 5, time.Duration(n)*6*time.Millisecond)
}

func BenchmarkSerializable10kTxns(b *testing.B) {
	benchCheck(b, "txns", genBankN(10_000), func(h History) Result { return Serializable(h, SerializableOptions{}) })
}

// A 10-minute history of 10 clients, one txn every 6ms on average.
func BenchmarkSerializable10Min10Clients(b *testing.B) {
	h := genBank(rand.New(rand.NewPCG(1, 2)), 10, 5, 10*time.Minute)
	benchCheck(b, "txns", h, func(h History) Result { return Serializable(h, SerializableOptions{}) })
}

func BenchmarkBankTotal10Min10Clients(b *testing.B) {
	h := genBank(rand.New(rand.NewPCG(1, 2)), 10, 5, 10*time.Minute)
	benchCheck(b, "txns", h, func(h History) Result { return BankTotal(h, BankOptions{}) })
}
