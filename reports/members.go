package reports

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// membersRow is the name of the timeline's first row: the cluster's
// members, with who led when and when a member was killed or restarted.
const membersRow = "members"

// tlLabel is a text drawn over a row, at a time in seconds (moved by the
// zoom script, like the fault labels).
type tlLabel struct {
	T     string
	X, Y  float64
	Class string
	Text  string
}

// leaderPalette is how many colours the stylesheet has for leaders
// (.lead.lead-0 …); members beyond it reuse them in turn.
const leaderPalette = 6

// isLeaderOp reports whether op is the leader observer's record rather than
// a client's call.
func isLeaderOp(op *checker.Operation) bool {
	return op.Kind == scenarios.KindLeader && op.Client == scenarios.LeaderClient
}

// memberShapes draws the members row at y: a span per leader from the
// change that made it lead to the next change (a grey span while no
// quorum agreed on one), and a mark where a fault killed or stopped a
// member and where it was restarted. It returns the labels naming the
// leaders too.
func (tl *timeline) memberShapes(h *checker.History, y float64, end time.Duration) ([]tlShape, []tlLabel) {
	var changes []*checker.Operation
	var members []string
	for i := range h.Ops {
		op := &h.Ops[i]
		if !isLeaderOp(op) {
			continue
		}
		changes = append(changes, op)
		if op.Output.Value != "" && !slices.Contains(members, op.Output.Value) {
			members = append(members, op.Output.Value)
		}
	}
	slices.SortFunc(members, naturalCompare)
	slices.SortStableFunc(changes, func(a, b *checker.Operation) int { return int(a.Call - b.Call) })
	var shapes []tlShape
	var labels []tlLabel
	for i, op := range changes {
		stop := end
		if i+1 < len(changes) {
			stop = changes[i+1].Call
		}
		lead := op.Output.Value
		class := "lead none"
		title := "no leader from " + secs(op.Call) + "s to " + secs(stop) + "s"
		if lead != "" {
			class = "lead lead-" + strconv.Itoa(slices.Index(members, lead)%leaderPalette)
			title = lead + " leads from " + secs(op.Call) + "s to " + secs(stop) + "s"
		}
		shapes = append(shapes, tlShape{Elem: "rect", ID: "op-" + strconv.Itoa(op.ID), Class: class,
			X: secs(op.Call), W: secs(max(stop-op.Call, time.Millisecond)), Y: y + 3, H: tlRowHeight - 6, Title: title})
		if lead != "" {
			labels = append(labels, tlLabel{T: secs(op.Call), X: op.Call.Seconds()*tl.Scale + 2, Y: y + 16, Class: "lead-label", Text: lead})
		}
	}
	for _, f := range h.Faults {
		if !memberHalt(f) {
			continue
		}
		who := strings.Join(f.Targets, ",")
		shapes = append(shapes, tlShape{Elem: "line", Class: "member-down", X: secs(f.Start), Y: y + 1, H: tlRowHeight - 2,
			Title: f.Name + ": " + who + " down at " + secs(f.Start) + "s"})
		if f.Healed && f.Err == "" {
			shapes = append(shapes, tlShape{Elem: "line", Class: "member-up", X: secs(f.End), Y: y + 1, H: tlRowHeight - 2,
				Title: who + " restarted at " + secs(f.End) + "s"})
		}
	}
	return shapes, labels
}

// memberHalt reports whether f took members down: a kill or a stop, which
// its heal restarts.
func memberHalt(f checker.FaultEvent) bool {
	return len(f.Targets) > 0 && (strings.HasPrefix(f.Name, "kill(") || strings.HasPrefix(f.Name, "stop("))
}
