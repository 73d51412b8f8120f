package checker

import (
	"cmp"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/etcdsim/etcdsim/internal/wallclock"
)

// linModel is a sequential specification for linSearch: a state S, small
// and comparable with ==, that operations O step. It is porcupine's Model
// without the interfaces: no state or operation is boxed, so a step
// allocates nothing.
type linModel[S comparable, O any] struct {
	init S
	// step reports whether op can take effect in state s, and the state
	// after it. It must not change *op.
	step func(s S, op *O) (ok bool, next S)
	// hash must give equal states equal hashes.
	hash func(S) uint64
	// describeOp and describeState are for porcupine's visualization.
	describeOp    func(op *O) string
	describeState func(S) string
}

// porcupine returns the model as a porcupine.Model whose inputs are O
// (outputs nil), for the visualization.
func (m *linModel[S, O]) porcupine() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return m.init },
		Step: func(state, input, _ any) (bool, any) {
			op := input.(O)
			return m.step(state.(S), &op)
		},
		Hash: func(state any) uint64 { return m.hash(state.(S)) },
		DescribeOperation: func(input, _ any) string {
			op := input.(O)
			return m.describeOp(&op)
		},
		DescribeState: func(state any) string { return m.describeState(state.(S)) },
	}
}

// linOp is an operation to linearize: it takes effect at one instant
// between call and ret (ns on the run clock; ret is Infinity when its
// outcome is unknown), or, if it may not have taken effect, possibly never.
type linOp[O any] struct {
	call, ret int64
	index     int // in History.Ops
	op        O
}

// linAnswer is linSearch's verdict on one partition.
type linAnswer uint8

const (
	linOK linAnswer = iota
	linIllegal
	linTimedOut
)

// linSearch decides whether ops are linearizable under m. It is porcupine's
// search (Wing and Gong's, with Lowe's cache of visited configurations): it
// walks the calls and returns in time order, linearizing a call whenever its
// step is legal and the set of operations linearized so far, together with
// the state, is new, and backtracks when it reaches a return whose call it
// has not linearized. It explores in porcupine's order (up to the order of
// events at the same instant), but on index-linked lists, with the
// linearized set hashed incrementally and the configurations cached in one
// open-addressed table, so that a step costs a few loads and allocates
// nothing.
//
// If ops are not linearizable it also returns the longest partial
// linearization it met (indexes in ops), the first it found of that length.
// deadline is on the wall clock (wallclock.Now); zero means no limit.
func linSearch[S comparable, O any](m *linModel[S, O], ops []linOp[O], deadline time.Time) (linAnswer, []int) {
	n := len(ops)
	if n == 0 {
		return linOK, nil
	}
	// Node 0 is the head of the list; node k > 0 is the (k-1)th event in
	// time order, calls before returns at the same instant (porcupine's
	// intervals are closed). A next of 0 ends the list: the head is nobody's
	// next.
	type event struct {
		t   int64
		op  int32
		ret bool
	}
	events := make([]event, 0, 2*n)
	for i := range ops {
		events = append(events, event{ops[i].call, int32(i), false}, event{ops[i].ret, int32(i), true})
	}
	slices.SortFunc(events, func(a, b event) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		if a.ret != b.ret {
			if a.ret {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.op, b.op)
	})
	nodes := len(events) + 1
	next, prev := make([]int32, nodes), make([]int32, nodes)
	opOf := make([]int32, nodes)  // the operation of a call node
	match := make([]int32, nodes) // a call node's return node; 0 for a return node
	retNode := make([]int32, n)
	for k := len(events); k >= 1; k-- {
		e := events[k-1]
		opOf[k] = e.op
		if e.ret {
			retNode[e.op] = int32(k)
		} else {
			match[k] = retNode[e.op]
		}
		prev[k] = int32(k - 1)
		if k < len(events) {
			next[k] = int32(k + 1)
		}
	}
	next[0] = 1
	lift := func(c int32) {
		r := match[c]
		next[prev[c]] = next[c]
		prev[next[c]] = prev[c]
		next[prev[r]] = next[r]
		if next[r] != 0 {
			prev[next[r]] = prev[r]
		}
	}
	unlift := func(c int32) {
		r := match[c]
		next[prev[r]] = r
		if next[r] != 0 {
			prev[next[r]] = r
		}
		next[prev[c]] = c
		prev[next[c]] = c
	}

	// The linearized set, as bits and as the XOR of a random-looking word
	// per operation (Zobrist hashing), so that its hash costs nothing.
	linearized := make([]uint64, (n+63)/64)
	zobrist := make([]uint64, n)
	for i := range zobrist {
		zobrist[i] = splitmix64(uint64(i))
	}
	var setHash uint64
	toggle := func(i int32) {
		linearized[i/64] ^= 1 << (i % 64)
		setHash ^= zobrist[i]
	}
	seen := newLinCache[S](len(linearized))

	type frame struct {
		call  int32
		state S
	}
	var calls []frame
	var longest []int
	state := m.init
	c := next[0]
	for steps := 0; next[0] != 0; steps++ {
		if steps&1023 == 0 && !deadline.IsZero() && wallclock.Now().After(deadline) {
			return linTimedOut, nil
		}
		if match[c] != 0 {
			i := opOf[c]
			if ok, after := m.step(state, &ops[i].op); ok {
				toggle(i)
				if seen.add(setHash^m.hash(after), linearized, after) {
					calls = append(calls, frame{c, state})
					state = after
					lift(c)
					c = next[0]
					continue
				}
				toggle(i)
			}
			c = next[c]
			continue
		}
		// A return whose call is not linearized: undo the last call.
		if len(calls) == 0 {
			return linIllegal, longest
		}
		if len(calls) > len(longest) {
			longest = longest[:0]
			for _, f := range calls {
				longest = append(longest, int(opOf[f.call]))
			}
		}
		top := calls[len(calls)-1]
		calls = calls[:len(calls)-1]
		state = top.state
		toggle(opOf[top.call])
		unlift(top.call)
		c = next[top.call]
	}
	return linOK, nil
}

// splitmix64 is the output function of the SplitMix64 generator: a
// bijection that spreads consecutive integers over all 64 bits.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// linCache is the set of configurations (a linearized set and a state)
// linSearch has visited: an open-addressed hash table, at most half full,
// whose slots hold the configurations themselves, so that looking one up
// touches one slot and its neighbours. The first 128 bits of a set are in
// its slot; the rest, for partitions of more than 128 operations, are in
// extra at the slot's index.
type linCache[S comparable] struct {
	words int // per linearized set
	shift uint
	n     int // configurations held
	slots []linSlot[S]
	extra []uint64 // slot i's words past the first two: extra[i*(words-2):]
}

// linSlot is a slot of linCache. tag is the configuration's hash with the
// low bit set, or 0 when the slot is empty.
type linSlot[S comparable] struct {
	tag   uint64
	set   [2]uint64
	state S
}

func newLinCache[S comparable](words int) *linCache[S] {
	const bits = 10
	c := &linCache[S]{words: words, shift: 64 - bits, slots: make([]linSlot[S], 1<<bits)}
	if words > 2 {
		c.extra = make([]uint64, (words-2)<<bits)
	}
	return c
}

// add records the configuration (set, s), whose hash is h, and reports
// whether it is new.
func (c *linCache[S]) add(h uint64, set []uint64, s S) bool {
	var head [2]uint64
	copy(head[:], set)
	tag := h | 1
	rest := max(c.words-2, 0)
	mask := uint64(len(c.slots) - 1)
	i := (tag * 0x9e3779b97f4a7c15) >> c.shift
	for ; c.slots[i].tag != 0; i = (i + 1) & mask {
		sl := &c.slots[i]
		if sl.tag == tag && sl.state == s && sl.set == head &&
			(rest == 0 || slices.Equal(c.extra[int(i)*rest:int(i+1)*rest], set[2:])) {
			return false
		}
	}
	c.slots[i] = linSlot[S]{tag: tag, set: head, state: s}
	if rest > 0 {
		copy(c.extra[int(i)*rest:], set[2:])
	}
	c.n++
	if 4*c.n > 3*len(c.slots) {
		c.grow()
	}
	return true
}

// grow doubles the table.
func (c *linCache[S]) grow() {
	old, oldExtra := c.slots, c.extra
	c.slots = make([]linSlot[S], 2*len(old))
	rest := max(c.words-2, 0)
	if rest > 0 {
		c.extra = make([]uint64, rest*len(c.slots))
	}
	c.shift--
	mask := uint64(len(c.slots) - 1)
	for j := range old {
		if old[j].tag == 0 {
			continue
		}
		i := (old[j].tag * 0x9e3779b97f4a7c15) >> c.shift
		for c.slots[i].tag != 0 {
			i = (i + 1) & mask
		}
		c.slots[i] = old[j]
		if rest > 0 {
			copy(c.extra[int(i)*rest:int(i+1)*rest], oldExtra[j*rest:(j+1)*rest])
		}
	}
}
