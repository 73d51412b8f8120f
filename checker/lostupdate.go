package checker

// lostUpdate finds, in scc, a strongly connected component of the graph,
// a lost update: a txn T that read a version of key k, and wrote k later,
// after another txn U had written the version that followed the one T
// read. Its cycle is T -rw k-> U -ww k-> … -ww k-> T, along k's versions;
// U's update (and those of any writers between) is lost. It returns the
// cycle's edges, first T's rw edge, and whether it found one.
//
// Adya names any cycle with one anti-dependency G-single; a breadth-first
// search for a shortest cycle may find one through a third txn and call it
// read skew when the same component holds a lost update, which is what a
// reader should be told.
func (g *dsg) lostUpdate(h *History, scc []int32) ([]lostEdge, bool) {
	in := make(map[int32]bool, len(scc))
	for _, v := range scc {
		in[v] = true
	}
	for _, t := range scc {
		for _, e := range g.out[t] {
			if e.kind != depRW || !in[e.to] || !writes(&h.Ops[g.ops[t]], e.key) {
				continue
			}
			cycle := []lostEdge{{from: t, edge: e}}
			if chain, ok := g.wwChain(e.to, t, e.key, len(scc)); ok {
				return append(cycle, chain...), true
			}
		}
	}
	return nil, false
}

// lostEdge is an edge of a lost update's cycle.
type lostEdge struct {
	from int32
	edge dep
}

// wwChain follows key's ww edges from node from to node to, at most limit
// of them.
func (g *dsg) wwChain(from, to int32, key string, limit int) ([]lostEdge, bool) {
	var chain []lostEdge
	for at := from; at != to; {
		if len(chain) == limit {
			return nil, false
		}
		next := -1
		for i, e := range g.out[at] {
			if e.kind == depWW && e.key == key {
				next = i
				break
			}
		}
		if next < 0 {
			return nil, false
		}
		chain = append(chain, lostEdge{from: at, edge: g.out[at][next]})
		at = g.out[at][next].to
	}
	return chain, true
}

// writes reports whether op writes key.
func writes(op *Operation, key string) bool {
	for _, w := range op.Input.Writes {
		if w.Key == key {
			return true
		}
	}
	return false
}

// reportLostUpdate reports the lost update cycle.
func (g *dsg) reportLostUpdate(h *History, scc []int32, cycle []lostEdge, rep *report) {
	t, u := &h.Ops[g.ops[cycle[0].from]], &h.Ops[g.ops[cycle[0].edge.to]]
	key := cycle[0].edge.key
	var ops []*Operation
	path := ""
	for _, e := range cycle {
		op := &h.Ops[g.ops[e.from]]
		ops = append(ops, op)
		path += sprintf("op %d (%s) -%s %s-> ", op.ID, op.Client, depName[e.edge.kind], e.edge.key)
	}
	path += sprintf("op %d", t.ID)
	more := ""
	if n := len(cycle) - 2; n > 0 {
		more = sprintf(" and %s after it", plural(n, "other write"))
	}
	rep.violation(ViolationNotSerializable, ops,
		"G-single (a lost update: op %d (%s) wrote %s over op %d (%s)'s write to it%s, having read %s before op %d wrote it, so op %d's update is lost) among %s: %s",
		t.ID, t.Client, key, u.ID, u.Client, more, key, u.ID, u.ID, plural(len(scc), "txn"), path)
}
