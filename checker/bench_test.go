package checker

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// genLockLoad generates a well-behaved lock workload: on each of locks
// locks, clients clients take turns; each waits in acquire while the
// previous holders hold the lock, then holds it for one guarded write (when
// writes is set) and releases it. Operations are numbered in call order, as
// a recorder numbers them.
func genLockLoad(r *rand.Rand, locks, clients, holdsPerLock int, writes bool) History {
	const step = time.Microsecond
	var ops []Operation
	for l := range locks {
		key := fmt.Sprintf("/lock/%d", l)
		t := time.Duration(r.IntN(1000)) * step
		free := make([]time.Duration, clients) // when each client last returned
		var tok int64
		for k := range holdsPerLock {
			c := k % clients
			name := fmt.Sprintf("l%d-c%d", l, c)
			tok++
			ops = append(ops, Operation{Client: name, Kind: KindAcquire, Key: key,
				Call: free[c] + step, Return: t + step, Outcome: OutcomeOK, Output: Output{Token: tok}})
			t += step
			if writes {
				ops = append(ops, Operation{Client: name, Kind: KindGuardedWrite, Key: key, Input: Input{Value: "v", Token: tok},
					Call: t + step, Return: t + 2*step, Outcome: OutcomeOK})
				t += 2 * step
			}
			ops = append(ops, Operation{Client: name, Kind: KindRelease, Key: key,
				Call: t + step, Return: t + 2*step, Outcome: OutcomeOK})
			t += 2 * step
			free[c] = t
		}
	}
	slices.SortFunc(ops, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Client, b.Client), cmp.Compare(a.Kind, b.Kind))
	})
	for i := range ops {
		ops[i].ID = i
	}
	return History{Ops: ops}
}

// benchCheck judges h with check, which must find it ok, and reports the
// time per check and the operations judged per second, counted as unit
// ("ops", "txns", "reads").
func benchCheck(b *testing.B, unit string, h History, check func(History) Result) {
	b.Helper()
	b.Logf("%d %s", len(h.Ops), unit)
	for b.Loop() {
		if res := check(h); res.Verdict != VerdictOK {
			b.Fatalf("%s: %s %q", res.Verdict, res.Summary, messages(res))
		}
	}
	perCheck := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(perCheck, "s/check")
	b.ReportMetric(float64(len(h.Ops))/perCheck, unit+"/s")
}

func BenchmarkMutualExclusion(b *testing.B) {
	h := genLockLoad(rand.New(rand.NewPCG(1, 2)), 100, 10, 3334, true)
	benchCheck(b, "ops", h, func(h History) Result { return MutualExclusion(h, MutexOptions{}) })
}
