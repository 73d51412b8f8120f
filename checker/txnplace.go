package checker

import (
	"cmp"
	"slices"
	"time"
)

// placer tells apart the writes of unknown outcome that wrote the same
// value to a key, for a read of that value at a revision: etcd gives a
// revision to one transaction, so a candidate is ruled out when what is
// known of that revision contradicts it.
type placer struct {
	h   *History
	t   txnSet
	at  map[kr]string // the value each read saw at each key and mod revision
	ret []seenBy      // ok operations by return, with the highest revision seen up to each
}

// kr is a key at a revision: one version.
type kr struct {
	key string
	rev int64
}

// seenBy is the highest revision any operation that had returned by ret
// saw.
type seenBy struct {
	ret time.Duration
	rev int64
}

func newPlacer(h *History, t txnSet) *placer {
	p := &placer{h: h, t: t, at: map[kr]string{}}
	for _, i := range t.ops {
		op := &h.Ops[i]
		if op.Outcome != OutcomeOK {
			continue
		}
		rev := op.Output.Revision
		for _, r := range op.Output.Reads {
			if !r.Missing {
				if _, ok := p.at[kr{r.Key, r.Revision}]; !ok {
					p.at[kr{r.Key, r.Revision}] = r.Value
				}
				rev = max(rev, r.Revision)
			}
		}
		p.ret = append(p.ret, seenBy{op.Return, rev})
	}
	slices.SortFunc(p.ret, func(a, b seenBy) int { return cmp.Compare(a.ret, b.ret) })
	for j := 1; j < len(p.ret); j++ {
		p.ret[j].rev = max(p.ret[j].rev, p.ret[j-1].rev)
	}
	return p
}

// narrow returns the candidates (graph nodes, each a txn of unknown
// outcome that wrote the value read) that may have written key at rev.
// It rules out a candidate:
//   - that wrote key at another revision (elsewhere, a read placed it);
//   - one of whose other writes contradicts what is known of rev: a read
//     of that other key at rev saw another value, or another txn's write
//     is placed there;
//   - that was called after some operation had returned having seen rev
//     or a later one: rev already existed.
func (p *placer) narrow(cands []int32, key string, rev int64, elsewhere func(u int32) bool, placedAt func(key string, rev int64) (int32, bool)) []int32 {
	var out []int32
	for _, u := range cands {
		op := &p.h.Ops[p.t.ops[u]]
		if elsewhere(u) || p.seenBefore(op.Call) >= rev {
			continue
		}
		ok := true
		for _, w := range op.Input.Writes {
			if w.Key == key {
				continue
			}
			if v, seen := p.at[kr{w.Key, rev}]; seen && v != w.Value {
				ok = false
			}
			if o, placed := placedAt(w.Key, rev); placed && o != u {
				ok = false
			}
		}
		if ok {
			out = append(out, u)
		}
	}
	return out
}

// seenBefore returns the highest revision an operation that returned
// before t had seen, 0 if none.
func (p *placer) seenBefore(t time.Duration) int64 {
	j, _ := slices.BinarySearchFunc(p.ret, t, func(s seenBy, t time.Duration) int { return cmp.Compare(s.ret, t) })
	if j == 0 {
		return 0
	}
	return p.ret[j-1].rev
}
