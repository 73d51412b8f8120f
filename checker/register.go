package checker

import (
	"hash/maphash"

	"github.com/anishathalye/porcupine"
)

// RegisterLinearizable checks a key-value store, one register per key, for
// linearizability with porcupine, partitioned per key. Every register
// starts out missing.
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
	ids := clientIDs(&h)
	parts := make([]linPartition, 0, len(keys))
	for _, k := range keys {
		p := linPartition{key: k}
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
			in := regIn{kind: op.Kind, value: op.Input.Value, expect: op.Input.Expect, expectMissing: op.Input.ExpectMissing}
			out := regOut{unknown: op.Outcome == OutcomeUnknown}
			if !out.unknown {
				out.value, out.missing, out.succeeded, out.rev = op.Output.Value, op.Output.Missing, op.Output.Succeeded, op.Output.Revision
			}
			p.ops = append(p.ops, porcupineOp(&h, i, ids, in, out))
		}
		parts = append(parts, p)
	}
	return checkLinearizable(&h, rep, "register", registerModel(), parts, opts)
}

type regIn struct {
	kind          Kind
	value, expect string
	expectMissing bool
}

type regOut struct {
	unknown, missing, succeeded bool
	value                       string
	rev                         int64
}

// regState is a register: its value, and the mod revision of that value (or
// of the deletion) when known, else 0.
type regState struct {
	exists bool
	value  string
	rev    int64
}

// after reports whether a change committed at rev can follow state.
func (s regState) after(rev int64) bool { return rev == 0 || s.rev == 0 || rev > s.rev }

func (s regState) holds(in regIn) bool {
	if in.expectMissing {
		return !s.exists
	}
	return s.exists && s.value == in.expect
}

func registerModel() porcupine.Model {
	seed := maphash.MakeSeed()
	return porcupine.Model{
		Init: func() any { return regState{} },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(regState), input.(regIn), output.(regOut)
			switch in.kind {
			case KindRead:
				switch {
				case out.unknown:
					return true, s
				case out.missing:
					return !s.exists, s
				case !s.exists || s.value != out.value:
					return false, s
				case out.rev != 0 && s.rev != 0:
					return out.rev == s.rev, s
				default:
					s.rev = max(s.rev, out.rev)
					return true, s
				}
			case KindWrite:
				if !s.after(out.rev) {
					return false, s
				}
				return true, regState{exists: true, value: in.value, rev: out.rev}
			case KindDelete:
				if !s.after(out.rev) {
					return false, s
				}
				return true, regState{rev: out.rev}
			case KindCAS:
				match := s.holds(in)
				switch {
				case out.unknown:
					if match {
						return true, regState{exists: true, value: in.value}
					}
					return true, s
				case out.succeeded:
					if !match || !s.after(out.rev) {
						return false, s
					}
					return true, regState{exists: true, value: in.value, rev: out.rev}
				default:
					return !match, s
				}
			}
			return false, s
		},
		Hash: func(state any) uint64 {
			s := state.(regState)
			return maphash.String(seed, s.value) ^ uint64(s.rev)
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(regIn), output.(regOut)
			var call string
			switch in.kind {
			case KindRead:
				call = "read()"
			case KindWrite:
				call = sprintf("write(%q)", in.value)
			case KindDelete:
				call = "delete()"
			case KindCAS:
				if in.expectMissing {
					call = sprintf("cas(missing, %q)", in.value)
				} else {
					call = sprintf("cas(%q, %q)", in.expect, in.value)
				}
			}
			var res string
			switch {
			case out.unknown:
				res = "unknown"
			case in.kind == KindRead && out.missing:
				res = "missing"
			case in.kind == KindRead:
				res = sprintf("%q", out.value)
			case in.kind == KindCAS && !out.succeeded:
				res = "compare failed"
			default:
				res = "ok"
			}
			if out.rev != 0 {
				res += sprintf(" @%d", out.rev)
			}
			return call + " -> " + res
		},
		DescribeState: func(state any) string {
			s := state.(regState)
			d := "missing"
			if s.exists {
				d = sprintf("%q", s.value)
			}
			if s.rev != 0 {
				d += sprintf(" @%d", s.rev)
			}
			return d
		},
	}
}
