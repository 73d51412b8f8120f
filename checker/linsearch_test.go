package checker

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// genRegisterHistory generates a register history on one or two keys: a few
// clients, each with operations one after another on a coarse clock, so
// that operations often overlap and touch. Each operation that takes effect
// does so at an instant between its call and its return on a real
// register, and reports what that register answered, with etcd-like
// revisions that are sometimes not recorded. Some operations fail (no
// effect) or end unknown (effect or not). With corrupt, one answer is then
// changed, which usually makes the history not linearizable. Up to 128
// operations fit in the linearized set's first two words in linSearch's
// cache; long makes one key's partition longer than that, and leaves out
// unknown outcomes, which would make the search blow up.
func genRegisterHistory(r *rand.Rand, corrupt, long bool) History {
	const tick = 0.1
	keys := []string{"x", "y"}[:1+r.IntN(2)]
	clients, perClient := 2+r.IntN(3), 1+r.IntN(5)
	if long {
		keys, clients, perClient = keys[:1], 3, 50
	}
	values := []string{"1", "2", "3"}
	type effect struct {
		op int
		at float64
	}
	var ops []Operation
	var effects []effect
	for c := range clients {
		name := fmt.Sprintf("c%d", c)
		t := r.IntN(4)
		for range perClient {
			call := t + r.IntN(3)
			ret := call + r.IntN(4)
			t = ret
			key := keys[r.IntN(len(keys))]
			var op Operation
			switch p := r.IntN(10); {
			case p < 4:
				op = mk(name, KindRead, key, float64(call)*tick, float64(ret)*tick)
			case p < 7:
				op = mk(name, KindWrite, key, float64(call)*tick, float64(ret)*tick, value(values[r.IntN(len(values))]))
			case p < 9:
				in := Input{Value: values[r.IntN(len(values))], Expect: values[r.IntN(len(values))]}
				if r.IntN(4) == 0 {
					in.Expect, in.ExpectMissing = "", true
				}
				op = mk(name, KindCAS, key, float64(call)*tick, float64(ret)*tick, withIn(in))
			default:
				op = mk(name, KindDelete, key, float64(call)*tick, float64(ret)*tick)
			}
			takesEffect := true
			switch p := r.IntN(10); {
			case p < 1:
				op.Outcome = OutcomeFailed
				takesEffect = false
			case p < 2 && !long: // each is concurrent with all that follow
				op.Outcome, op.Return, op.GaveUp = OutcomeUnknown, Infinity, at(float64(ret)*tick)
				takesEffect = r.IntN(2) == 0
			}
			if takesEffect {
				effects = append(effects, effect{op: len(ops), at: float64(call) + r.Float64()*float64(ret-call)})
			}
			ops = append(ops, op)
		}
	}
	// Play the effects on real registers, in the order they happened.
	slices.SortStableFunc(effects, func(a, b effect) int { return cmp.Compare(a.at, b.at) })
	type register struct {
		exists bool
		value  string
		rev    int64
	}
	regs := map[string]*register{}
	for _, k := range keys {
		regs[k] = &register{}
	}
	var rev int64
	recorded := func() int64 {
		if r.IntN(3) == 0 {
			return 0
		}
		return rev
	}
	for _, e := range effects {
		op := &ops[e.op]
		reg := regs[op.Key]
		switch op.Kind {
		case KindRead:
			op.Output.Value, op.Output.Missing = reg.value, !reg.exists
			if reg.exists && r.IntN(3) > 0 {
				op.Output.Revision = reg.rev
			}
		case KindWrite:
			rev++
			*reg = register{exists: true, value: op.Input.Value, rev: rev}
			op.Output.Revision = recorded()
		case KindDelete:
			rev++
			*reg = register{rev: rev}
			op.Output.Revision = recorded()
		case KindCAS:
			if (op.Input.ExpectMissing && !reg.exists) || (!op.Input.ExpectMissing && reg.exists && reg.value == op.Input.Expect) {
				rev++
				*reg = register{exists: true, value: op.Input.Value, rev: rev}
				op.Output.Succeeded, op.Output.Revision = true, recorded()
			}
		}
	}
	for i := range ops {
		if ops[i].Outcome != OutcomeOK {
			ops[i].Output = Output{}
		}
	}
	if corrupt {
		var ok []int
		for i := range ops {
			if ops[i].Outcome == OutcomeOK && ops[i].Kind != KindDelete {
				ok = append(ok, i)
			}
		}
		if len(ok) > 0 {
			op := &ops[ok[r.IntN(len(ok))]]
			switch {
			case op.Kind == KindCAS:
				op.Output.Succeeded = !op.Output.Succeeded
			case op.Kind == KindRead && op.Output.Missing:
				op.Output.Missing, op.Output.Value = false, values[r.IntN(len(values))]
			case op.Kind == KindRead && r.IntN(3) == 0:
				op.Output.Missing, op.Output.Value, op.Output.Revision = true, "", 0
			case op.Output.Revision != 0:
				op.Output.Revision += int64(r.IntN(3)) - 1
			default:
				op.Output.Value = values[r.IntN(len(values))]
			}
		}
	}
	slices.SortStableFunc(ops, func(a, b Operation) int { return cmp.Compare(a.Call, b.Call) })
	return hist(ops...)
}

// refRegister is RegisterLinearizable's register model as a plain porcupine
// model over the history's own operations, with values as strings: the
// reference the search, the numbering of values and revisions, and the
// compact model must agree with.
var refRegister = porcupine.Model{
	Init: func() any { return refRegState{} },
	Step: func(state, input, _ any) (bool, any) {
		s, op := state.(refRegState), input.(Operation)
		unknown := op.Outcome == OutcomeUnknown
		var out Output
		if !unknown {
			out = op.Output
		}
		after := func(rev int64) bool { return rev == 0 || s.rev == 0 || rev > s.rev }
		switch op.Kind {
		case KindRead:
			switch {
			case unknown:
				return true, s
			case out.Missing:
				return !s.exists, s
			case !s.exists || s.value != out.Value:
				return false, s
			case out.Revision != 0 && s.rev != 0:
				return out.Revision == s.rev, s
			default:
				s.rev = max(s.rev, out.Revision)
				return true, s
			}
		case KindWrite:
			return after(out.Revision), refRegState{exists: true, value: op.Input.Value, rev: out.Revision}
		case KindDelete:
			return after(out.Revision), refRegState{rev: out.Revision}
		case KindCAS:
			match := !s.exists && op.Input.ExpectMissing || s.exists && !op.Input.ExpectMissing && s.value == op.Input.Expect
			switch {
			case unknown && match:
				return true, refRegState{exists: true, value: op.Input.Value}
			case unknown:
				return true, s
			case out.Succeeded:
				return match && after(out.Revision), refRegState{exists: true, value: op.Input.Value, rev: out.Revision}
			default:
				return !match, s
			}
		}
		return false, s
	},
}

type refRegState struct {
	exists bool
	value  string
	rev    int64
}

// refVerdict is porcupine's verdict on one key: the result, the length of
// the longest partial linearization it found, and the number of
// operations.
type refVerdict struct {
	res          porcupine.CheckResult
	longest, ops int
}

// refRegisterCheck checks each key of h with refRegister.
func refRegisterCheck(h History) map[string]refVerdict {
	byKey := map[string][]porcupine.Operation{}
	for _, op := range h.Ops {
		if op.Outcome == OutcomeFailed {
			continue
		}
		byKey[op.Key] = append(byKey[op.Key], porcupine.Operation{Input: op, Call: int64(op.Call), Return: int64(op.End())})
	}
	res := map[string]refVerdict{}
	for k, ops := range byKey {
		verdict, info := porcupine.CheckOperationsVerbose(refRegister, ops, 10*time.Second)
		longest := 0
		for _, part := range info.PartialLinearizations() {
			for _, seq := range part {
				longest = max(longest, len(seq))
			}
		}
		res[k] = refVerdict{verdict, longest, len(ops)}
	}
	return res
}

// TestRegisterLinearizableAgreesWithPorcupine checks, on generated
// histories, that RegisterLinearizable reaches porcupine's verdict with
// refRegister on every key, and that where a key is not linearizable both
// find the same longest partial linearization: the search visits every
// configuration it can reach, in whatever order, so that length does not
// depend on the order.
func TestRegisterLinearizableAgreesWithPorcupine(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 500
	}
	seed := *propertySeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	r := rand.New(rand.NewPCG(seed, 1))
	count := map[Verdict]int{}
	skipped := 0
	for i := range n {
		h := genRegisterHistory(r, r.IntN(2) == 0, i%100 == 0)
		got := RegisterLinearizable(h, LinOptions{Timeout: 10 * time.Second, MaxViolations: -1})
		want := refRegisterCheck(h)
		fail := func(format string, args ...any) {
			t.Helper()
			b, _ := json.MarshalIndent(h, "", "  ")
			t.Fatalf("seed %d, history %d: %s; RegisterLinearizable: %s (%s) %v; history:\n%s\nrerun with -checker.seed=%d",
				seed, i, fmt.Sprintf(format, args...), got.Verdict, got.Summary, messages(got.Result), b, seed)
		}
		if slices.ContainsFunc(slices.Collect(maps.Values(want)), func(w refVerdict) bool { return w.res == porcupine.Unknown }) {
			skipped++ // porcupine timed out
			continue
		}
		wantVerdict := VerdictOK
		for k, w := range want {
			switch w.res {
			case porcupine.Ok:
			case porcupine.Illegal:
				wantVerdict = VerdictViolation
				prefix := fmt.Sprintf("register %s is not linearizable", k)
				holds := fmt.Sprintf("the longest linearizable prefix holds %d of its %d operations", w.longest, w.ops)
				if !slices.ContainsFunc(messages(got.Result), func(m string) bool {
					return strings.HasPrefix(m, prefix) && strings.HasSuffix(m, holds)
				}) {
					fail("porcupine says %s; %s", prefix, holds)
				}
			}
		}
		if got.Verdict != wantVerdict {
			fail("porcupine says %s", wantVerdict)
		}
		count[got.Verdict]++
	}
	t.Logf("seed %d: %d histories, %d ok, %d violations, %d skipped: porcupine timed out", seed, n, count[VerdictOK], count[VerdictViolation], skipped)
	if skipped > n/100 {
		t.Errorf("seed %d: porcupine timed out on %d of %d histories", seed, skipped, n)
	}
	if count[VerdictOK] < n/10 || count[VerdictViolation] < n/10 {
		t.Errorf("seed %d: the generator is lopsided: %d ok, %d violations of %d", seed, count[VerdictOK], count[VerdictViolation], n)
	}
}

// TestLinCache checks the visited set, with sets of one to five words,
// across its growth, under a good hash and under a poor one that makes
// lookups compare many configurations in full: a configuration is new the
// first time it is added, and only then.
func TestLinCache(t *testing.T) {
	type config struct {
		set   []uint64
		state regState
	}
	hashes := []struct {
		name string
		hash func(config) uint64
	}{
		{"good", func(c config) uint64 {
			h := regHash(c.state)
			for i, w := range c.set {
				h ^= splitmix64(w + uint64(i))
			}
			return h
		}},
		{"poor", func(c config) uint64 { return c.set[0]>>62 ^ uint64(c.state.value) }},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, words := range []int{1, 2, 3, 5} {
		var configs []config
		for i := range 3000 {
			if i%5 == 4 {
				again := configs[r.IntN(len(configs))]
				configs = append(configs, config{slices.Clone(again.set), again.state})
				continue
			}
			set := make([]uint64, words)
			for w := range set {
				set[w] = uint64(r.IntN(8))<<r.IntN(64) | uint64(r.IntN(8))
			}
			configs = append(configs, config{set, regState{value: int32(r.IntN(3)), rev: int32(r.IntN(2))}})
		}
		for _, hash := range hashes {
			c := newLinCache[regState](words)
			seen := map[string]bool{}
			for _, cf := range configs {
				key := fmt.Sprint(cf)
				if got := c.add(hash.hash(cf), cf.set, cf.state); got != !seen[key] {
					t.Fatalf("%d words, %s hash: add(%v) = %v, want %v", words, hash.name, cf, got, !seen[key])
				}
				seen[key] = true
			}
			for _, cf := range configs {
				if c.add(hash.hash(cf), cf.set, cf.state) {
					t.Fatalf("%d words, %s hash: %v is new the second time", words, hash.name, cf)
				}
			}
			if c.n != len(seen) {
				t.Errorf("%d words, %s hash: %d configurations held, want %d", words, hash.name, c.n, len(seen))
			}
			if c.n < 1024 || c.n == len(configs) {
				t.Errorf("%d words, %s hash: %d configurations of %d: want the table to grow and some configurations twice", words, hash.name, c.n, len(configs))
			}
		}
	}
}
