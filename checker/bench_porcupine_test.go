package checker

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// bareIn and bareOut are the operations of porcupine's own register model
// for the Jepsen etcd histories (etcdModel in porcupine's porcupine_test.go).
type bareIn struct {
	op         uint8 // 0 read, 1 write, 2 cas
	arg1, arg2 int   // write's value; cas's expected and new values
}

type bareOut struct {
	ok, exists, unknown bool
	value               int
}

// bareMissing is the state of a register that was never written.
const bareMissing = -1000000

// bareRegisterModel is porcupine's register model at its barest, as
// porcupine's tests write it: the state is the value, an int, compared with
// == and not hashed; no partitioning, no descriptions.
var bareRegisterModel = porcupine.Model{
	Init: func() any { return bareMissing },
	Step: func(state, input, output any) (bool, any) {
		st, in, out := state.(int), input.(bareIn), output.(bareOut)
		switch in.op {
		case 0:
			return out.unknown || (!out.exists && st == bareMissing) || (out.exists && st == out.value), st
		case 1:
			return true, in.arg1
		default:
			next := st
			if in.arg1 == st {
				next = in.arg2
			}
			return out.unknown || (in.arg1 == st) == out.ok, next
		}
	},
}

// bareOps converts a Jepsen history for bareRegisterModel, with the same
// times, clients and outcomes RegisterLinearizable gives porcupine.
func bareOps(tb testing.TB, h History) []porcupine.Operation {
	tb.Helper()
	atoi := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			tb.Fatalf("a Jepsen value that is not an integer: %v", err)
		}
		return n
	}
	ids := clientIDs(&h)
	var ops []porcupine.Operation
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Outcome == OutcomeFailed {
			continue
		}
		var in bareIn
		out := bareOut{unknown: op.Outcome == OutcomeUnknown, ok: op.Output.Succeeded, exists: !op.Output.Missing}
		switch op.Kind {
		case KindWrite:
			in = bareIn{op: 1, arg1: atoi(op.Input.Value)}
		case KindCAS:
			in = bareIn{op: 2, arg1: atoi(op.Input.Expect), arg2: atoi(op.Input.Value)}
		case KindRead:
			if !out.unknown && out.exists {
				out.value = atoi(op.Output.Value)
			}
		}
		ops = append(ops, porcupine.Operation{ClientId: ids[op.Client], Input: in, Output: out,
			Call: int64(op.Call), Return: int64(op.End())})
	}
	return ops
}

// BenchmarkRegisterVsPorcupine runs RegisterLinearizable and
// bareRegisterModel over the same Jepsen histories, one after the other on
// each history, taking turns to go first, so that both sides see the same
// machine, each from a collected heap, so that neither pays for the other's
// garbage. It reports each side's time for one pass over the histories and
// ratio, RegisterLinearizable's time over porcupine's: the goal is at most
// 1.3. The porcupine side's histories are converted before the timing; the
// checker side's time includes everything RegisterLinearizable does.
func BenchmarkRegisterVsPorcupine(b *testing.B) {
	type jepsen struct {
		h            History
		ops          []porcupine.Operation
		linearizable bool
	}
	var all []jepsen
	for _, c := range jepsenCases(b) {
		h := readJepsen(b, c.path)
		all = append(all, jepsen{h: h, ops: bareOps(b, h), linearizable: c.linearizable})
	}
	groups := []struct {
		name string
		keep func(jepsen) bool
	}{
		{"all", func(jepsen) bool { return true }},
		{"linearizable", func(j jepsen) bool { return j.linearizable }},
		{"violating", func(j jepsen) bool { return !j.linearizable }},
	}
	for _, g := range groups {
		var hs []jepsen
		for _, j := range all {
			if g.keep(j) {
				hs = append(hs, j)
			}
		}
		b.Run(g.name, func(b *testing.B) {
			var checker, bare time.Duration
			pass := 0
			runChecker := func(j jepsen) {
				runtime.GC()
				start := time.Now()
				res := RegisterLinearizable(j.h, LinOptions{})
				checker += time.Since(start)
				if (res.Verdict == VerdictOK) != j.linearizable || res.Verdict == VerdictUnknown {
					b.Fatalf("RegisterLinearizable: %s, want linearizable=%v: %s", res.Verdict, j.linearizable, res.Summary)
				}
			}
			runBare := func(j jepsen) {
				runtime.GC()
				start := time.Now()
				ok := porcupine.CheckOperations(bareRegisterModel, j.ops)
				bare += time.Since(start)
				if ok != j.linearizable {
					b.Fatalf("porcupine: linearizable=%v, want %v", ok, j.linearizable)
				}
			}
			for b.Loop() {
				for i, j := range hs {
					if (pass+i)%2 == 0 {
						runChecker(j)
						runBare(j)
					} else {
						runBare(j)
						runChecker(j)
					}
				}
				pass++
			}
			b.ReportMetric(checker.Seconds()*1e3/float64(b.N), "checker-ms/pass")
			b.ReportMetric(bare.Seconds()*1e3/float64(b.N), "porcupine-ms/pass")
			b.ReportMetric(checker.Seconds()/bare.Seconds(), "ratio")
			b.ReportMetric(float64(len(hs)), "histories")
		})
	}
}
