package checker

import "strings"

// sccs returns the graph's strongly connected components, by Tarjan's
// algorithm without recursion: O(V + E).
func (g *dsg) sccs() [][]int32 {
	n := len(g.out)
	index := make([]int32, n) // 0: not visited; else the visit order from 1
	low := make([]int32, n)
	onStack := make([]bool, n)
	var stack []int32
	var out [][]int32
	type frame struct {
		node int32
		next int // the next edge of node to follow
	}
	var next int32
	for root := range n {
		if index[root] != 0 {
			continue
		}
		call := []frame{{node: int32(root)}}
		next++
		index[root], low[root] = next, next
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.node
			if f.next < len(g.out[v]) {
				w := g.out[v][f.next].to
				f.next++
				switch {
				case index[w] == 0:
					next++
					index[w], low[w] = next, next
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{node: w})
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].node
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				var scc []int32
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					scc = append(scc, w)
					if w == v {
						break
					}
				}
				out = append(out, scc)
			}
		}
	}
	return out
}

// report reports one shortest cycle through the first node of scc, a
// strongly connected component of two nodes or more, found by a breadth-
// first search inside the component.
func (g *dsg) report(h *History, scc []int32, rep *report) {
	if cycle, ok := g.lostUpdate(h, scc); ok { // lostupdate.go
		g.reportLostUpdate(h, scc, cycle, rep)
		return
	}
	in := make(map[int32]bool, len(scc))
	for _, v := range scc {
		in[v] = true
	}
	start := scc[0]
	type via struct {
		from int32
		edge dep
	}
	prev := map[int32]via{}
	queue := []int32{start}
	var last *via
	for len(queue) > 0 && last == nil {
		v := queue[0]
		queue = queue[1:]
		for _, e := range g.out[v] {
			if !in[e.to] {
				continue
			}
			if e.to == start {
				last = &via{from: v, edge: e}
				break
			}
			if _, seen := prev[e.to]; !seen {
				prev[e.to] = via{from: v, edge: e}
				queue = append(queue, e.to)
			}
		}
	}
	// Walk the cycle back from start.
	var edges []via
	for at := *last; ; at = prev[at.from] {
		edges = append(edges, at)
		if at.from == start {
			break
		}
	}
	var ops []*Operation
	var b strings.Builder
	rw, wr, ww := 0, 0, 0
	for i := len(edges) - 1; i >= 0; i-- {
		e := edges[i]
		op := &h.Ops[g.ops[e.from]]
		ops = append(ops, op)
		b.WriteString(sprintf("op %d (%s) -%s %s-> ", op.ID, op.Client, depName[e.edge.kind], e.edge.key))
		switch e.edge.kind {
		case depRW:
			rw++
		case depWR:
			wr++
		case depWW:
			ww++
		}
	}
	b.WriteString(sprintf("op %d", h.Ops[g.ops[start]].ID))
	name := "G0 (write cycle)"
	switch {
	case rw == 1 && ww == 1 && len(edges) == 2:
		// One wrote over the other's write, from a read taken before
		// the other wrote: the other's update is lost.
		lost, over := edges[0], edges[1]
		if lost.edge.kind == depRW {
			lost, over = over, lost
		}
		a, b := &h.Ops[g.ops[lost.from]], &h.Ops[g.ops[over.from]]
		name = sprintf("G-single (a lost update: op %d (%s) wrote %s over op %d (%s)'s write to it, having read %s before op %d wrote it, so op %d's update is lost)",
			b.ID, b.Client, lost.edge.key, a.ID, a.Client, over.edge.key, a.ID, a.ID)
	case rw == 1:
		name = "G-single (read skew)"
	case rw > 1:
		name = "G2 (anti-dependency cycle)"
	case wr > 0:
		name = "G1c (circular information flow)"
	}
	rep.violation(ViolationNotSerializable, ops, "%s among %s: %s", name, plural(len(scc), "txn"), b.String())
}
