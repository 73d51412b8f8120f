package checker

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

var propertySeed = flag.Uint64("checker.seed", 0, "seed for the property tests (0: from the clock)")

// lockClient generates one client's sequential lock operations.
type lockClient struct {
	name  string
	t     int             // the client's clock, in ticks
	state map[string]byte // per lock: 0 free, 'h' held, 'm' maybe held
}

// genLockHistory generates a small lock history: a few clients take turns
// on one or two locks, with ok, failed and unknown outcomes and crashes, on
// a coarse clock so that operations often touch.
func genLockHistory(r *rand.Rand) History {
	tick := func(n int) float64 { return float64(n) * 0.1 }
	locks := []string{"/a", "/b"}[:1+r.IntN(2)]
	var ops []Operation
	for c := range 2 + r.IntN(3) {
		cl := &lockClient{name: fmt.Sprintf("c%d", c), t: r.IntN(5), state: map[string]byte{}}
		for range 1 + r.IntN(4) {
			lock := locks[r.IntN(len(locks))]
			if cl.state[lock] != 0 {
				// Let go of it first.
				for {
					call := cl.t + r.IntN(4)
					ret := call + r.IntN(3)
					switch p := r.IntN(20); {
					case p < 1:
						ops = append(ops, crash(cl.name, tick(call)))
						cl.state = map[string]byte{}
						cl.t = call
					case p < 4:
						ops = append(ops, mk(cl.name, KindRelease, lock, tick(call), never, gaveUp(tick(ret))))
						cl.state[lock], cl.t = 0, ret
					case p < 6 && cl.state[lock] == 'h':
						ops = append(ops, mk(cl.name, KindRelease, lock, tick(call), tick(ret), failed))
						cl.t = ret
						continue // still held: try again
					default:
						ops = append(ops, mk(cl.name, KindRelease, lock, tick(call), tick(ret)))
						cl.state[lock], cl.t = 0, ret
					}
					break
				}
				continue
			}
			call := cl.t + r.IntN(3)
			ret := call + r.IntN(6)
			switch p := r.IntN(10); {
			case p < 2:
				ops = append(ops, mk(cl.name, KindAcquire, lock, tick(call), never, gaveUp(tick(ret))))
				cl.state[lock] = 'm'
			case p < 3:
				ops = append(ops, mk(cl.name, KindAcquire, lock, tick(call), tick(ret), failed))
			default:
				ops = append(ops, mk(cl.name, KindAcquire, lock, tick(call), tick(ret)))
				cl.state[lock] = 'h'
			}
			cl.t = ret
		}
	}
	return hist(ops...)
}

// TestIntervalsAgreeWithPorcupine checks, on generated histories, that the
// interval check of MutualExclusion and the porcupine mutex model of
// LockLinearizable reach the same verdict.
func TestIntervalsAgreeWithPorcupine(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	seed := *propertySeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	r := rand.New(rand.NewPCG(seed, 0))
	count := map[Verdict]int{}
	for i := range n {
		h := genLockHistory(r)
		intervals := MutualExclusion(h, MutexOptions{})
		model := LockLinearizable(h, LinOptions{Timeout: 10 * time.Second})
		got := intervals.Verdict
		if got == VerdictUnknown && intervals.Metrics["holds"] == 0 {
			got = VerdictOK // nobody held a lock: nothing could overlap
		}
		if got != model.Verdict || (got != VerdictOK && got != VerdictViolation) {
			b, _ := json.MarshalIndent(h, "", "  ")
			t.Fatalf("seed %d, history %d: intervals say %s (%s), porcupine says %s (%s); history:\n%s\nrerun with -checker.seed=%d",
				seed, i, intervals.Verdict, intervals.Summary, model.Verdict, model.Summary, b, seed)
		}
		count[got]++
	}
	t.Logf("seed %d: %d histories, %d ok, %d violations", seed, n, count[VerdictOK], count[VerdictViolation])
	if count[VerdictOK] < n/10 || count[VerdictViolation] < n/10 {
		t.Errorf("seed %d: the generator is lopsided: %d ok, %d violations of %d", seed, count[VerdictOK], count[VerdictViolation], n)
	}
}
