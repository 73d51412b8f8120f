package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/etcdsim/etcdsim/checker"
)

// latencyMaxPoints is how many operations the plot draws one by one; past
// it, each kind keeps its fastest and slowest operation per time slice.
const (
	latencyMaxPoints = 4000
	latencySlices    = 400
)

// latencyFigure is the latency plot of a run: the SVG, its legend (drawn
// by the page above the plot, in HTML, so that it never covers a point)
// and a caption that says what was drawn.
type latencyFigure struct {
	SVG     string
	Legend  []legendEntry
	Caption string
}

// legendEntry is one key of a legend: a name and its colour as CSS.
type legendEntry struct {
	Name  string
	Style template.CSS // "background:#rrggbb"
}

// faultShade is the colour of the fault windows.
var faultShade = color.NRGBA{R: 230, G: 120, B: 40, A: 50}

// latencyPlot draws each completed operation's latency against its call
// time, a colour per kind, over the fault windows, as an SVG document.
func latencyPlot(h *checker.History) (latencyFigure, error) {
	var fig latencyFigure
	byKind := map[checker.Kind]plotter.XYs{}
	var kinds []checker.Kind
	n, maxLat, end := 0, 0.0, 0.0
	for _, op := range h.Ops {
		if op.Outcome == checker.OutcomeUnknown || op.Kind == checker.KindCrash || isLeaderOp(&op) {
			continue
		}
		if _, ok := byKind[op.Kind]; !ok {
			kinds = append(kinds, op.Kind)
		}
		// The scale is logarithmic: keep instant operations on it.
		x, y := op.Call.Seconds(), max(float64(op.Return-op.Call)/1e6, 0.01)
		byKind[op.Kind] = append(byKind[op.Kind], plotter.XY{X: x, Y: y})
		n++
		maxLat, end = max(maxLat, y), max(end, op.Return.Seconds())
	}
	if n == 0 {
		fig.Caption = "No operation completed: there is no latency to plot."
		return fig, nil
	}
	slices.Sort(kinds)
	caption := fmt.Sprintf("Latency (log scale) of the %d operations that completed, against when they were called; shaded: fault windows.", n)
	if n > latencyMaxPoints {
		for k, xys := range byKind {
			byKind[k] = extremes(xys, end)
		}
		caption = fmt.Sprintf("Latency (log scale) of the %d operations that completed, against when they were called: for each kind, the fastest and the slowest of each of %d time slices. Shaded: fault windows.", n, latencySlices)
	}

	p := plot.New()
	p.X.Label.Text = "call (s)"
	p.Y.Label.Text = "latency (ms)"
	p.X.Min = 0
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	// At least two decades: log ticks need one, and on the virtual clock
	// every operation of a fault-free run can take no time at all.
	bottom, top := 0.01, max(maxLat*1.5, 1)
	p.Y.Min, p.Y.Max = bottom, top // a range of one value would be padded below zero
	for _, f := range h.Faults {
		stop := end
		if f.Healed {
			stop = f.End.Seconds()
		}
		band, err := plotter.NewPolygon(plotter.XYs{{X: f.Start.Seconds(), Y: bottom}, {X: stop, Y: bottom}, {X: stop, Y: top}, {X: f.Start.Seconds(), Y: top}})
		if err != nil {
			return fig, fmt.Errorf("reports: latency plot: %w", err)
		}
		band.Color = faultShade
		band.LineStyle.Width = 0
		p.Add(band)
	}
	for i, k := range kinds {
		s, err := plotter.NewScatter(byKind[k])
		if err != nil {
			return fig, fmt.Errorf("reports: latency plot: %w", err)
		}
		s.GlyphStyle.Color = plotutil.Color(i)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(2)
		p.Add(s)
		fig.Legend = append(fig.Legend, legendEntry{Name: string(k), Style: cssBackground(plotutil.Color(i), 1)})
	}
	if len(h.Faults) > 0 {
		fig.Legend = append(fig.Legend, legendEntry{Name: "fault window", Style: cssBackground(faultShade, 4)})
	}
	p.Add(plotter.NewGrid())
	c := vgsvg.New(10*vg.Inch, 3.2*vg.Inch)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return fig, fmt.Errorf("reports: latency plot: %w", err)
	}
	// Inline: drop the XML prolog and comments before <svg.
	out := b.String()
	if i := strings.Index(out, "<svg"); i >= 0 {
		out = out[i:]
	}
	fig.SVG, fig.Caption = out, caption
	return fig, nil
}

// cssBackground is c as a CSS background, its alpha multiplied by boost
// (a faint shade drawn over a whole window reads darker than a small key).
func cssBackground(c color.Color, boost float64) template.CSS {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	alpha := min(float64(n.A)/255*boost, 1)
	return template.CSS(fmt.Sprintf("background:rgba(%d,%d,%d,%.2f)", n.R, n.G, n.B, alpha))
}

// extremes keeps the fastest and the slowest point of each time slice.
func extremes(xys plotter.XYs, end float64) plotter.XYs {
	type pair struct{ lo, hi *plotter.XY }
	slots := make([]pair, latencySlices)
	for i := range xys {
		p := &xys[i]
		s := min(int(p.X/end*latencySlices), latencySlices-1)
		if slots[s].lo == nil || p.Y < slots[s].lo.Y {
			slots[s].lo = p
		}
		if slots[s].hi == nil || p.Y > slots[s].hi.Y {
			slots[s].hi = p
		}
	}
	var out plotter.XYs
	for _, s := range slots {
		if s.lo != nil {
			out = append(out, *s.lo)
		}
		if s.hi != nil && s.hi != s.lo {
			out = append(out, *s.hi)
		}
	}
	return out
}
