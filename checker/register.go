package checker

import "slices"

// RegisterLinearizable checks a key-value store, one register per key, for
// linearizability, partitioned per key, with porcupine's search (see
// linSearch); Visualize draws porcupine's timeline. Every register starts
// out missing.
//
// It reads, per key Key:
//   - read: Output.Value, or Output.Missing; Output.Revision, when
//     recorded, is the value's mod revision and must match the revision of
//     the write it read from.
//   - write: Input.Value; Output.Revision, when recorded, the revision it
//     committed at.
//   - cas: swaps to Input.Value if the register holds Input.Expect (or is
//     missing, with Input.ExpectMissing). Outcome ok with Output.Succeeded
//     false means the comparison failed, which is an observation: the
//     register did not hold the expected value at that instant.
//   - delete: the register becomes missing; Output.Revision as for write.
//
// Revisions, where recorded, must increase along the linearization. Failed
// operations are left out; operations of unknown outcome may take effect at
// any instant after their call, or never. If the search times out the
// verdict is unknown, never ok.
//
// Invalid: a register operation without a key, a cas with both Expect and
// ExpectMissing, and whatever History.Validate rejects.
func RegisterLinearizable(h History, opts LinOptions) LinResult {
	rep := newReport(CheckerRegisterLinearizable, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return LinResult{Result: rep.invalid(err)}
	}
	keys, groups := groupByKey(&h, KindRead, KindWrite, KindCAS, KindDelete)
	vals := newRegValues(&h, groups)
	parts := make([]linPart[regOp], 0, len(keys))
	for _, k := range keys {
		p := linPart[regOp]{key: k, ops: make([]linOp[regOp], 0, len(groups[k]))}
		for _, i := range groups[k] {
			op := &h.Ops[i]
			if k == "" {
				return LinResult{Result: rep.invalid(invalidOp(op, "%s without a key", op.Kind))}
			}
			if op.Kind == KindCAS && op.Input.ExpectMissing && op.Input.Expect != "" {
				return LinResult{Result: rep.invalid(invalidOp(op, "cas expects both %q and a missing key", op.Input.Expect))}
			}
			if op.Outcome == OutcomeFailed {
				continue
			}
			p.ops = append(p.ops, linOp[regOp]{call: int64(op.Call), ret: int64(op.End()), index: i, op: vals.op(op)})
		}
		parts = append(parts, p)
	}
	return checkLinearizable(&h, rep, "register", registerModel(vals), parts, opts)
}

// regValues numbers the values a history's register operations write,
// expect and read, from 1: 0 is a missing register. It also numbers their
// revisions in order, from 1: 0 is a revision not recorded. Numbers keep a
// register's state to 8 bytes.
type regValues struct {
	ids   map[string]int32
	names []string // value n is names[n-1]
	revs  []int64  // revision n is revs[n-1]; increasing
}

// newRegValues numbers the revisions of the operations in groups.
func newRegValues(h *History, groups map[string][]int) *regValues {
	v := &regValues{}
	for _, g := range groups {
		for _, i := range g {
			if r := h.Ops[i].Output.Revision; r != 0 {
				v.revs = append(v.revs, r)
			}
		}
	}
	slices.Sort(v.revs)
	v.revs = slices.Compact(v.revs)
	return v
}

// rev numbers a revision.
func (v *regValues) rev(r int64) int32 {
	if r == 0 {
		return 0
	}
	n, _ := slices.BinarySearch(v.revs, r)
	return int32(n + 1)
}

// revision is the revision numbered n.
func (v *regValues) revision(n int32) int64 { return v.revs[n-1] }

func (v *regValues) id(s string) int32 {
	if n, ok := v.ids[s]; ok {
		return n
	}
	if v.ids == nil {
		v.ids = map[string]int32{}
	}
	v.names = append(v.names, s)
	n := int32(len(v.names))
	v.ids[s] = n
	return n
}

// op converts a read, write, cas or delete that did not fail.
func (v *regValues) op(op *Operation) regOp {
	r := regOp{unknown: op.Outcome == OutcomeUnknown}
	switch op.Kind {
	case KindRead:
		r.kind = regRead
	case KindWrite:
		r.kind, r.value = regWrite, v.id(op.Input.Value)
	case KindDelete:
		r.kind = regDelete
	case KindCAS:
		r.kind, r.value = regCAS, v.id(op.Input.Value)
		if !op.Input.ExpectMissing {
			r.expect = v.id(op.Input.Expect)
		}
	}
	if !r.unknown {
		r.missing, r.succeeded, r.rev = op.Output.Missing, op.Output.Succeeded, v.rev(op.Output.Revision)
		if r.kind == regRead && !r.missing {
			r.read = v.id(op.Output.Value)
		}
	}
	return r
}

type regKind uint8

const (
	regRead regKind = iota
	regWrite
	regCAS
	regDelete
)

// regOp is a register operation, its values numbered by regValues: what
// it wrote (value), expected (expect; 0 expects a missing register) and
// read (read, or missing), and the revision it recorded. An operation of
// unknown outcome has no output.
type regOp struct {
	kind                        regKind
	unknown, missing, succeeded bool
	value, expect, read, rev    int32
}

// regState is a register: its value (0 when missing), and the mod revision
// of that value (or of the deletion) when known, else 0; both numbered by
// regValues.
type regState struct {
	value, rev int32
}

// after reports whether a change committed at rev can follow state.
func (s regState) after(rev int32) bool { return rev == 0 || s.rev == 0 || rev > s.rev }

func regStep(s regState, op *regOp) (bool, regState) {
	switch op.kind {
	case regRead:
		switch {
		case op.unknown:
			return true, s
		case op.missing:
			return s.value == 0, s
		case s.value != op.read:
			return false, s
		case op.rev != 0 && s.rev != 0:
			return op.rev == s.rev, s
		default:
			s.rev = max(s.rev, op.rev)
			return true, s
		}
	case regWrite:
		if !s.after(op.rev) {
			return false, s
		}
		return true, regState{value: op.value, rev: op.rev}
	case regDelete:
		if !s.after(op.rev) {
			return false, s
		}
		return true, regState{rev: op.rev}
	case regCAS:
		match := s.value == op.expect
		switch {
		case op.unknown:
			if match {
				return true, regState{value: op.value}
			}
			return true, s
		case op.succeeded:
			if !match || !s.after(op.rev) {
				return false, s
			}
			return true, regState{value: op.value, rev: op.rev}
		default:
			return !match, s
		}
	}
	return false, s
}

func regHash(s regState) uint64 {
	return uint64(uint32(s.value)) ^ uint64(uint32(s.rev))<<32
}

// registerModel is a register whose values and revisions vals numbers.
func registerModel(vals *regValues) *linModel[regState, regOp] {
	value := func(n int32) string {
		if n >= 1 && int(n) <= len(vals.names) {
			return sprintf("%q", vals.names[n-1])
		}
		return "missing"
	}
	return &linModel[regState, regOp]{
		step: regStep,
		hash: regHash,
		describeOp: func(op *regOp) string {
			var call string
			switch op.kind {
			case regRead:
				call = "read()"
			case regWrite:
				call = sprintf("write(%s)", value(op.value))
			case regDelete:
				call = "delete()"
			case regCAS:
				call = sprintf("cas(%s, %s)", value(op.expect), value(op.value))
			}
			var res string
			switch {
			case op.unknown:
				res = "unknown"
			case op.kind == regRead && op.missing:
				res = "missing"
			case op.kind == regRead:
				res = value(op.read)
			case op.kind == regCAS && !op.succeeded:
				res = "compare failed"
			default:
				res = "ok"
			}
			if op.rev != 0 {
				res += sprintf(" @%d", vals.revision(op.rev))
			}
			return call + " -> " + res
		},
		describeState: func(s regState) string {
			d := value(s.value)
			if s.rev != 0 {
				d += sprintf(" @%d", vals.revision(s.rev))
			}
			return d
		},
	}
}
