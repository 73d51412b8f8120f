package reports

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/etcdsim/etcdsim/checker"
)

// The timeline's geometry, in pixels. Times are drawn in seconds inside a
// group scaled by timeline.Scale, so zooming rescales one transform.
const (
	tlRowHeight  = 24
	tlLaneHeight = 16 // one lane of fault labels above the rows
	// tlCharWidth is a generous width of one character of a fault label
	// (11px system-ui; see style.css), so that the lanes laid out here
	// hold every label apart at the initial scale; the zoom script
	// measures the real widths and hides a label that would overlap the
	// one before it in its lane (its band's tooltip still names it).
	tlCharWidth  = 7
	tlLabelGap   = 8 // pixels kept clear after a label
	tlAxisHeight = 18
	tlMinWidth   = 1000 // the initial drawing is at least this wide
	tlMinScale   = 60   // and draws at least this many pixels a second
)

// timeline is what the run page draws: a row for the cluster's members
// (see memberShapes), a row per client with its operations, and a band
// per fault event.
type timeline struct {
	Scale    float64 // pixels a second, initially
	Seconds  float64 // the run's length
	Width    float64 // Seconds*Scale
	Height   float64
	RowsTop  float64 // where the first row, the members row, begins
	Rows     []tlRow // the members row, then a row per client
	Labels   []tlLabel
	Bands    []tlBand
	Ticks    []tlTick
	Violated map[int]bool // operations some violation names
}

type tlRow struct {
	Client  string
	Members bool // the members row
	Y       float64
	Shapes  []tlShape
}

// tlShape is one mark in a row. X and W are in seconds; Y and H in
// pixels.
type tlShape struct {
	Elem  string // "rect" or "line"
	ID    string // element id, "" for none
	Class string
	X, W  string
	Y, H  float64
	Title string
}

type tlBand struct {
	ID      int
	Label   string
	Title   string
	Class   string
	X, W    string // seconds
	LabelX  float64
	LabelY  float64
	LabelT  string // the start in seconds, for the zoom script
	Extents []tlExtent
}

// tlExtent is a vertical stretch of a band, over adjacent rows.
type tlExtent struct{ Y, H float64 }

type tlTick struct {
	T     string
	X     float64
	Label string
}

// secs formats a time on the run clock as seconds, to the 0.1 ms.
func secs(d time.Duration) string {
	return strconv.FormatFloat(math.Round(d.Seconds()*1e4)/1e4, 'f', -1, 64)
}

// buildTimeline lays out h. violated are the operations some violation
// names.
func buildTimeline(h *checker.History, violated map[int]bool) *timeline {
	end := h.End
	for i := range h.Ops {
		op := &h.Ops[i]
		end = max(end, op.Call)
		if op.Outcome != checker.OutcomeUnknown {
			end = max(end, op.Return)
		} else {
			end = max(end, op.GaveUp)
		}
	}
	for _, f := range h.Faults {
		end = max(end, f.Start)
		if f.Healed {
			end = max(end, f.End)
		}
	}
	end += 100 * time.Millisecond
	tl := &timeline{Seconds: end.Seconds(), Violated: violated}
	tl.Scale = max(tlMinScale, tlMinWidth/tl.Seconds)
	tl.Width = math.Ceil(tl.Seconds * tl.Scale)

	clients := clientsOf(h)
	lanes := faultLanes(h.Faults, tl.Scale)
	nLanes := 0
	for _, l := range lanes {
		nLanes = max(nLanes, l+1)
	}
	tl.RowsTop = tlAxisHeight + float64(nLanes)*tlLaneHeight
	tl.Rows = append(tl.Rows, tlRow{Client: membersRow, Members: true, Y: tl.RowsTop})
	rowOf := map[string]int{}
	for i, c := range clients {
		rowOf[c] = i + 1
		tl.Rows = append(tl.Rows, tlRow{Client: c, Y: tl.clientY(i)})
	}
	tl.Height = tl.clientY(len(clients)) + 4
	tl.Rows[0].Shapes, tl.Labels = tl.memberShapes(h, tl.RowsTop, end)

	for i := range h.Ops {
		op := &h.Ops[i]
		if isLeaderOp(op) {
			continue
		}
		row := &tl.Rows[rowOf[op.Client]]
		row.Shapes = append(row.Shapes, tl.opShapes(h, op, row.Y, end)...)
	}
	for i, f := range h.Faults {
		b := tl.band(i, f, lanes[i], clients, end)
		tl.Bands = append(tl.Bands, b)
		// A label that starts near the end runs past it: widen the
		// drawing to hold it, rather than clip it.
		tl.Width = max(tl.Width, math.Ceil(b.LabelX+float64(utf8.RuneCountInString(b.Label)*tlCharWidth)))
	}
	tl.Ticks = ticks(tl.Seconds, tl.Scale)
	return tl
}

// clientY is where the row of the i-th client begins, below the members
// row.
func (tl *timeline) clientY(i int) float64 { return tl.RowsTop + float64(i+1)*tlRowHeight }

// opShapes draws one operation: a short span from call to return; for an
// unknown outcome an open, dashed span to the end of the run; for a crash
// a mark; and for an acquire or a campaign that succeeded, the hold or
// term as a bar to the matching release or resign (or, open, to the end).
func (tl *timeline) opShapes(h *checker.History, op *checker.Operation, y float64, end time.Duration) []tlShape {
	class := "op k-" + string(op.Kind) + " o-" + string(op.Outcome)
	if tl.Violated[op.ID] {
		class += " viol"
	}
	id := "op-" + strconv.Itoa(op.ID)
	title := op.String()
	if op.Kind == checker.KindCrash {
		return []tlShape{{Elem: "line", ID: id, Class: class + " crash", X: secs(op.Call), Y: y + 1, H: tlRowHeight - 2, Title: title}}
	}
	var out []tlShape
	if op.Outcome == checker.OutcomeUnknown {
		out = append(out, tlShape{Elem: "rect", ID: id, Class: class + " open", X: secs(op.Call), W: secs(end - op.Call), Y: y + 3, H: 8, Title: title})
		return out
	}
	out = append(out, tlShape{Elem: "rect", ID: id, Class: class, X: secs(op.Call), W: secs(op.Return - op.Call), Y: y + 3, H: 8, Title: title})
	if op.Outcome != checker.OutcomeOK || (op.Kind != checker.KindAcquire && op.Kind != checker.KindCampaign) {
		return out
	}
	stopKind, noun := checker.KindRelease, "hold"
	if op.Kind == checker.KindCampaign {
		stopKind, noun = checker.KindResign, "term"
	}
	stop := holdEnd(h, op, stopKind)
	hold := tlShape{Elem: "rect", ID: noun + "-" + strconv.Itoa(op.ID), Class: noun, X: secs(op.Return), Y: y + 13, H: 8}
	violated := tl.Violated[op.ID]
	if stop == nil {
		hold.Class += " open"
		hold.W = secs(end - op.Return)
		hold.Title = noun + " of " + op.String() + ", never ended in the history"
	} else {
		violated = violated || tl.Violated[stop.ID]
		hold.W = secs(max(stop.Call-op.Return, 0))
		hold.Title = noun + " from " + op.String() + " to " + stop.String()
	}
	if violated {
		hold.Class += " viol"
	}
	return append(out, hold)
}

// holdEnd finds what ends the hold (or term) op began: the client's next
// operation of kind stop on the same key, or its next crash.
func holdEnd(h *checker.History, op *checker.Operation, stop checker.Kind) *checker.Operation {
	var best *checker.Operation
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Client != op.Client || o.Call < op.Return || o.ID == op.ID {
			continue
		}
		if o.Kind == checker.KindCrash || o.Kind == stop && o.Key == op.Key {
			if best == nil || o.Call < best.Call {
				best = o
			}
		}
	}
	return best
}

// band draws fault event f across the rows of the clients it hit, or
// across every row when it hit none of them (a member fault).
func (tl *timeline) band(i int, f checker.FaultEvent, lane int, clients []string, end time.Duration) tlBand {
	stop := end
	class := "band"
	if f.Healed {
		stop = f.End
	} else {
		class += " unhealed"
	}
	if f.Err != "" {
		class += " failed"
	}
	label := bandLabel(f)
	title := label + " from " + secs(f.Start) + "s"
	if f.Healed {
		title += " to " + secs(f.End) + "s"
	} else {
		title += ", never healed"
	}
	if f.Detail != "" {
		title += " (" + f.Detail + ")"
	}
	if f.Err != "" {
		title += ": " + f.Err
	}
	if f.NotApplicable != "" {
		title += ": not applicable to this recipe: " + f.NotApplicable
	}
	b := tlBand{ID: i, Label: label, Title: title, Class: class, X: secs(f.Start), W: secs(max(stop-f.Start, time.Millisecond)),
		LabelT: secs(f.Start), LabelX: f.Start.Seconds()*tl.Scale + 2,
		LabelY: tlAxisHeight + float64(lane)*tlLaneHeight + 12}
	top := tlAxisHeight + float64(lane)*tlLaneHeight
	hit := make([]bool, len(clients))
	any := false
	for j, c := range clients {
		for _, t := range f.Targets {
			if c == t || strings.HasPrefix(c, t+"/") {
				hit[j], any = true, true
			}
		}
	}
	if !any {
		b.Extents = []tlExtent{{Y: top, H: tl.Height - top}}
		return b
	}
	for j := 0; j < len(clients); j++ {
		if !hit[j] {
			continue
		}
		k := j
		for k+1 < len(clients) && hit[k+1] {
			k++
		}
		y0 := tl.clientY(j)
		if len(b.Extents) == 0 {
			y0 = top // the first stretch reaches up to the label
		}
		b.Extents = append(b.Extents, tlExtent{Y: y0, H: tl.clientY(k+1) - y0})
		j = k
	}
	return b
}

// bandLabel is the label drawn above fault f's band.
func bandLabel(f checker.FaultEvent) string {
	label := f.Name
	if len(f.Targets) > 0 {
		label += " → " + strings.Join(f.Targets, ",")
	}
	return label
}

// faultLanes gives each fault a lane for its label, so that no two labels
// overlap at scale (pixels a second), and no label sits on a band of its
// lane: a lane is taken until the end of the fault's band or of its
// label, whichever is later.
func faultLanes(fs []checker.FaultEvent, scale float64) []int {
	lanes := make([]int, len(fs))
	var laneEnd []float64 // where each lane's last label or band ends, in pixels
	order := make([]int, len(fs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(fs[a].Start, fs[b].Start) })
	for _, i := range order {
		f := fs[i]
		start := f.Start.Seconds() * scale
		// A label needs room for its text even when the fault is short.
		until := start + 2 + float64(utf8.RuneCountInString(bandLabel(f))*tlCharWidth+tlLabelGap)
		if f.Healed {
			until = max(until, f.End.Seconds()*scale)
		}
		l := slices.IndexFunc(laneEnd, func(e float64) bool { return e <= start })
		if l < 0 {
			l = len(laneEnd)
			laneEnd = append(laneEnd, 0)
		}
		laneEnd[l] = until
		lanes[i] = l
	}
	return lanes
}

// ticks places axis labels about every 100 pixels.
func ticks(seconds, scale float64) []tlTick {
	step := 0.1
	for _, s := range []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600} {
		step = s
		if s*scale >= 100 {
			break
		}
	}
	var out []tlTick
	for i := 0; float64(i)*step <= seconds; i++ {
		t := float64(i) * step
		out = append(out, tlTick{T: strconv.FormatFloat(t, 'f', -1, 64), X: t * scale, Label: strconv.FormatFloat(t, 'f', -1, 64) + "s"})
	}
	return out
}

// clientsOf lists the history's clients in natural order: c2 before c10,
// c1 before c1/0. The leader observer is not one of them.
func clientsOf(h *checker.History) []string {
	seen := map[string]bool{}
	var out []string
	for _, op := range h.Ops {
		if !seen[op.Client] && !isLeaderOp(&op) {
			seen[op.Client] = true
			out = append(out, op.Client)
		}
	}
	slices.SortFunc(out, naturalCompare)
	return out
}

// naturalCompare orders strings with their runs of digits compared as
// numbers.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da != "" && db != "" {
			na, _ := strconv.Atoi(da)
			nb, _ := strconv.Atoi(db)
			if na != nb {
				return cmp.Compare(na, nb)
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}
