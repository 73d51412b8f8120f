package checker

import (
	"cmp"
	"slices"
)

// SerializableOptions configures Serializable. The zero value keeps 20
// violations.
type SerializableOptions struct {
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// Serializable checks that a history's transactions are serializable, by
// Adya's direct serialization graph: a node per transaction, an edge for
// each dependency — ww (T2 overwrote T1's version), wr (T2 read T1's
// version), rw (T2 overwrote the version T1 read) — and a violation for
// each cycle, named by its edges as Adya names the phenomena: G0 (only
// ww), G1c (ww and wr), G-single (one rw: read skew, lost update) and G2
// (several rw: write skew). A read of a value no transaction committed
// is a violation too (G1a: aborted read; or a value nobody wrote).
//
// Why a graph and not porcupine: etcd numbers every version of a key with
// its mod revision, and a txn records the revision of each value it read,
// so the version order of every key is known outright. Building the graph
// is then sorting, and finding a cycle is Tarjan's strongly connected
// components: O(V + E + R log R) for V txns, E ≤ 3R edges and R reads and
// writes, where a search for a multi-key linearization is exponential in
// the worst case. The graph checks serializability, not strict
// serializability: it has no real-time edges.
//
// It reads txn operations:
//   - outcome ok with Output.Succeeded: a committed transaction; its reads
//     and its writes (Input.Writes) at Output.Revision.
//   - outcome ok without Output.Succeeded: a transaction that did not
//     commit but whose reads its program acted on; its reads only.
//   - outcome unknown: its writes, at the revision a read of them shows
//     (its writes that nobody read add no edge).
//   - outcome failed: its writes never took effect; reading one is G1a.
//
// A read names the version it saw by its key and mod revision, so values
// need not be unique: a program that writes plain balances is judged as
// one that tags each value. A write's own Revision, where set, is the
// revision it took effect at (a transaction of several commits); else a
// committed txn's writes are at Output.Revision. Only a write of unknown
// outcome is named by its value: a read that any of several such writes
// could explain is left out of the graph, and with no violation found the
// verdict is then unknown.
//
// Invalid: a failed txn's write with a revision, what txns rejects, and
// whatever History.Validate rejects. With no committed transaction the
// verdict is unknown.
func Serializable(h History, opts SerializableOptions) Result {
	rep := newReport(CheckerSerializable, opts.MaxViolations)
	t, err := txns(&h)
	if err != nil {
		return rep.invalid(err)
	}
	g, err := buildDSG(&h, t, rep)
	if err != nil {
		return rep.invalid(err)
	}
	cycles := 0
	for _, scc := range g.sccs() {
		if len(scc) < 2 {
			continue
		}
		cycles++
		g.report(&h, scc, rep)
	}
	m := rep.res.Metrics
	m["txns"] = float64(len(t.ops))
	m["committed"] = float64(g.committed)
	m["edges"] = float64(g.edges)
	m["cycles"] = float64(cycles)
	m["unplaced_reads"] = float64(g.unplaced)
	summary := sprintf("%s (%d committed), %d dependencies", plural(len(t.ops), "txn"), g.committed, g.edges)
	undecided := ""
	switch {
	case g.committed == 0:
		undecided = "no transaction committed"
	case g.unplaced > 0:
		undecided = sprintf("%s of a value that several writes of unknown outcome wrote to the same key left out of the graph; "+
			"a value unique to each write (\"40 t17\") names its writer", plural(g.unplaced, "read"))
	}
	return rep.done(summary, undecided)
}

// Dependency kinds.
const (
	depWW uint8 = iota
	depWR
	depRW
)

var depName = [...]string{depWW: "ww", depWR: "wr", depRW: "rw"}

// dep is an edge of the graph: to the node to, for key.
type dep struct {
	to   int32
	kind uint8
	key  string
}

// dsg is the direct serialization graph over the txns of a history.
type dsg struct {
	ops       []int   // node n is h.Ops[ops[n]]
	out       [][]dep // out[n]: the edges from node n
	committed int
	edges     int
	unplaced  int // reads that any of several writes of unknown outcome may explain
}

// version is one version of a key: the revision it was written at and the
// node that wrote it.
type version struct {
	rev    int64
	writer int32
}

// buildDSG builds the graph. Reads that no committed or possibly
// committed write explains are reported as violations on the way; reads
// that several writes of unknown revision could explain are counted in
// g.unplaced and left out.
//
// A version is named by its key and revision where the revision is known
// (a committed txn's Output.Revision, or a write's own Revision), so that
// values need not be unique: a program that writes plain balances ("40")
// is judged too. A write whose revision is unknown (its txn's outcome is
// unknown) is named by its value, and gets the revision a read of it shows.
func buildDSG(h *History, t txnSet, rep *report) (*dsg, error) {
	g := &dsg{ops: t.ops, out: make([][]dep, len(t.ops))}
	type kv struct{ key, value string }
	nWrites := 0
	for _, i := range t.ops {
		nWrites += len(h.Ops[i].Input.Writes)
	}
	placed := make(map[kr]int32, nWrites) // writes at a known revision
	pending := map[kv][]int32{}           // writes of unknown revision, by value
	aborted := map[kv]int32{}             // writes that never took effect
	versions := map[string][]version{}    // per key, in no order yet
	var written map[kv][]int32            // every write that may have taken effect, by value: made for the first read none explains
	writersOf := func(k kv) []int32 {
		if written == nil {
			written = map[kv][]int32{}
			for n, i := range t.ops {
				op := &h.Ops[i]
				if op.Outcome == OutcomeFailed {
					continue
				}
				for _, w := range op.Input.Writes {
					written[kv{w.Key, w.Value}] = append(written[kv{w.Key, w.Value}], int32(n))
				}
			}
		}
		return written[k]
	}
	for n, i := range t.ops {
		op := &h.Ops[i]
		committed := op.Outcome == OutcomeOK && op.Output.Succeeded
		if committed {
			g.committed++
		}
		for _, w := range op.Input.Writes {
			k := kv{w.Key, w.Value}
			rev := w.Revision
			if rev == 0 && committed {
				rev = op.Output.Revision
			}
			switch {
			case op.Outcome == OutcomeFailed:
				if w.Revision != 0 {
					return nil, invalidOp(op, "failed txn wrote %s at revision %d", w.Key, w.Revision)
				}
				aborted[k] = int32(n)
			case rev != 0:
				if _, dup := placed[kr{w.Key, rev}]; !dup {
					placed[kr{w.Key, rev}] = int32(n)
				}
				versions[w.Key] = append(versions[w.Key], version{rev, int32(n)})
			case op.Outcome == OutcomeUnknown:
				pending[k] = append(pending[k], int32(n))
			}
		}
	}
	// Reads name their versions; an unknown txn's writes get the revision
	// a read of them shows.
	type read struct {
		reader int32
		key    string
		rev    int64 // 0: the key was missing
	}
	var reads []read
	type wk struct {
		writer int32
		key    string
	}
	learned := map[wk]int64{} // the revisions of unknown txns' writes
	var pl *placer            // made for the first read that several unknown writes may explain
	for n, i := range t.ops {
		op := &h.Ops[i]
		if op.Outcome != OutcomeOK {
			continue
		}
		for _, r := range op.Output.Reads {
			if r.Missing {
				reads = append(reads, read{int32(n), r.Key, 0})
				continue
			}
			k := kv{r.Key, r.Value}
			if w, ok := placed[kr{r.Key, r.Revision}]; ok {
				if v := writeOf(&h.Ops[t.ops[w]], r.Key); v != r.Value {
					wop := &h.Ops[t.ops[w]]
					rep.violation(ViolationNotSerializable, []*Operation{wop, op},
						"op %d read %s, but op %d wrote %q to %s at that revision", op.ID, r, wop.ID, v, r.Key)
					continue
				}
				reads = append(reads, read{int32(n), r.Key, r.Revision})
				continue
			}
			ws := pending[k]
			if len(ws) > 1 {
				if pl == nil {
					pl = newPlacer(h, t)
				}
				ws = pl.narrow(ws, r.Key, r.Revision, func(u int32) bool {
					l, ok := learned[wk{u, r.Key}]
					return ok && l != r.Revision
				}, func(key string, rev int64) (int32, bool) { u, ok := placed[kr{key, rev}]; return u, ok })
			}
			switch {
			case len(ws) == 1:
				u := ws[0]
				if l, ok := learned[wk{u, r.Key}]; ok && l != r.Revision {
					if len(pending[k]) > 1 {
						g.unplaced++
						continue
					}
					wop := &h.Ops[t.ops[u]]
					rep.violation(ViolationNotSerializable, []*Operation{wop, op},
						"op %d read %s, but op %d wrote that value at revision %d", op.ID, r, wop.ID, l)
					continue
				}
				if _, ok := learned[wk{u, r.Key}]; !ok {
					learned[wk{u, r.Key}] = r.Revision
					versions[r.Key] = append(versions[r.Key], version{r.Revision, u})
					placed[kr{r.Key, r.Revision}] = u
				}
				reads = append(reads, read{int32(n), r.Key, r.Revision})
			case len(pending[k]) > 1:
				// Any of several writes of unknown outcome may be the
				// one read, or none is left: the read names no writer.
				g.unplaced++
			case len(writersOf(k)) == 1:
				wop := &h.Ops[t.ops[writersOf(k)[0]]]
				rep.violation(ViolationNotSerializable, []*Operation{wop, op},
					"op %d read %s, but op %d wrote that value at revision %d", op.ID, r, wop.ID, revOf(wop, r.Key))
			default:
				if a, ok := aborted[k]; ok {
					rep.violation(ViolationNotSerializable, []*Operation{&h.Ops[t.ops[a]], op},
						"G1a: op %d read %s, written by op %d, which never committed", op.ID, r, h.Ops[t.ops[a]].ID)
				} else {
					rep.violation(ViolationNotSerializable, []*Operation{op},
						"op %d read %s, which no transaction wrote at that revision", op.ID, r)
				}
			}
		}
	}
	// Each key's versions in revision order; the initial, missing version
	// comes before them all and has no writer.
	for key, l := range versions {
		slices.SortFunc(l, func(a, b version) int { return cmp.Compare(a.rev, b.rev) })
		for j := 1; j < len(l); j++ {
			if l[j].rev == l[j-1].rev {
				a, b := &h.Ops[t.ops[l[j-1].writer]], &h.Ops[t.ops[l[j].writer]]
				rep.violation(ViolationNotSerializable, []*Operation{a, b},
					"G0: op %d and op %d both wrote %s at revision %d", a.ID, b.ID, key, l[j].rev)
				continue
			}
			g.add(l[j-1].writer, l[j].writer, depWW, key)
		}
	}
	for _, r := range reads {
		l := versions[r.key]
		j, found := slices.BinarySearchFunc(l, r.rev, func(v version, rev int64) int { return cmp.Compare(v.rev, rev) })
		if found {
			g.add(l[j].writer, r.reader, depWR, r.key)
			j++
		}
		if j < len(l) {
			g.add(r.reader, l[j].writer, depRW, r.key)
		}
	}
	return g, nil
}

// writeOf returns the value op wrote to key.
func writeOf(op *Operation, key string) string {
	for _, w := range op.Input.Writes {
		if w.Key == key {
			return w.Value
		}
	}
	return ""
}

// revOf returns the revision op's write to key took effect at, 0 if not
// known.
func revOf(op *Operation, key string) int64 {
	for _, w := range op.Input.Writes {
		if w.Key == key && w.Revision != 0 {
			return w.Revision
		}
	}
	if op.Outcome == OutcomeOK && op.Output.Succeeded {
		return op.Output.Revision
	}
	return 0
}

// add adds the edge from → to, unless it is a loop.
func (g *dsg) add(from, to int32, kind uint8, key string) {
	if from == to {
		return
	}
	g.out[from] = append(g.out[from], dep{to: to, kind: kind, key: key})
	g.edges++
}
