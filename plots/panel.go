package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// axisRange is the extent of the drawable data along one axis.
type axisRange struct {
	min, max float64
	ok       bool // at least one value was added
}

func (r *axisRange) add(v float64) {
	if !r.ok {
		r.min, r.max, r.ok = v, v, true
		return
	}
	r.min = math.Min(r.min, v)
	r.max = math.Max(r.max, v)
}

func (r *axisRange) union(o axisRange) {
	if o.ok {
		r.add(o.min)
		r.add(o.max)
	}
}

// final returns the range to draw, in axis coordinates (log10 of the
// data on a log axis): a default for an empty axis, and a widened one for
// a single value, so that the axis always has positive length.
func (r axisRange) final(log bool) (lo, hi float64) {
	switch {
	case !r.ok && log:
		return 0, 1 // 1 to 10
	case !r.ok:
		return 0, 1
	case r.min < r.max && !math.IsInf(r.max-r.min, 0):
		return r.min, r.max
	case r.min < r.max: // the span overflows a float64: halve both ends
		return r.min / 2, r.max / 2
	case log:
		return r.min - 0.3, r.max + 0.3 // a factor of 2 either side
	case r.min == 0:
		return -1, 1
	default:
		d := math.Abs(r.min) / 10
		return r.min - d, r.max + d
	}
}

// cleanSeries is a Series reduced to its drawable points, in axis
// coordinates.
type cleanSeries struct {
	src  *Series
	xys  plotter.XYs
	errs plotter.YErrors // nil without error bars; Low and High are distances from Y
}

// cleanBand is a Band reduced to its drawable points, in axis coordinates.
type cleanBand struct {
	src   *Band
	upper plotter.XYs // (X, Hi)
	lower plotter.XYs // (X, Lo)
}

// panelData is a Panel reduced to what can be drawn, in axis coordinates
// (log10 of the data on log axes), with its ranges and the counts of
// values left out.
type panelData struct {
	panel     *Panel
	series    []cleanSeries
	hlines    []float64 // heights of the drawable HLines
	bands     []cleanBand
	nonPos    int // values ≤ 0 on a log axis, left out
	nonFinite int // NaN or ±Inf values, left out
	x, y      axisRange
}

// drawable reports whether v can be drawn on an axis, and why not: a
// non-finite value or a value ≤ 0 on a log axis.
func drawable(v float64, log bool) (ok, finite bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false, false
	}
	return !log || v > 0, true
}

// toAxis maps a drawable data value to axis coordinates.
func toAxis(v float64, log bool) float64 {
	if log {
		return math.Log10(v)
	}
	return v
}

// cleanPanel checks the lengths of p's data, drops the values that cannot
// be drawn, clips error bars on a log Y axis, maps everything to axis
// coordinates and computes the ranges.
func cleanPanel(p *Panel) (*panelData, error) {
	d := &panelData{panel: p}
	// point reports whether all of vs can be drawn on their axes, counting
	// the point as left out otherwise.
	point := func(vs []float64, logs []bool) bool {
		ok, finite := true, true
		for i, v := range vs {
			o, f := drawable(v, logs[i])
			ok, finite = ok && o, finite && f
		}
		if !finite {
			d.nonFinite++
		} else if !ok {
			d.nonPos++
		}
		return ok
	}
	ax := func(v float64) float64 { return toAxis(v, p.LogX) }
	ay := func(v float64) float64 { return toAxis(v, p.LogY) }

	for si := range p.Series {
		s := &p.Series[si]
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("series %d %q: len(X) = %d, len(Y) = %d", si, s.Label, len(s.X), len(s.Y))
		}
		if len(s.Err) != 0 && len(s.Err) != len(s.Y) {
			return nil, fmt.Errorf("series %d %q: len(Err) = %d, want 0 or len(Y) = %d", si, s.Label, len(s.Err), len(s.Y))
		}
		cs := cleanSeries{src: s}
		for i := range s.X {
			x, y := s.X[i], s.Y[i]
			if !point([]float64{x, y}, []bool{p.LogX, p.LogY}) {
				continue
			}
			cs.xys = append(cs.xys, plotter.XY{X: ax(x), Y: ay(y)})
			d.x.add(ax(x))
			d.y.add(ay(y))
			if len(s.Err) == 0 {
				continue
			}
			lo, hi := errorBar(y, s.Err[i], p.LogY)
			bar := struct{ Low, High float64 }{Low: ay(y) - ay(y-lo), High: ay(y+hi) - ay(y)}
			cs.errs = append(cs.errs, bar)
			d.y.add(ay(y) - bar.Low)
			d.y.add(ay(y) + bar.High)
		}
		d.series = append(d.series, cs)
	}

	for _, h := range p.HLines {
		if point([]float64{h.Y}, []bool{p.LogY}) {
			d.hlines = append(d.hlines, ay(h.Y))
			d.y.add(ay(h.Y))
		}
	}

	for _, v := range p.YInclude {
		if ok, _ := drawable(v, p.LogY); ok {
			d.y.add(ay(v))
		}
	}

	for bi := range p.Bands {
		b := &p.Bands[bi]
		if len(b.X) != len(b.Lo) || len(b.X) != len(b.Hi) {
			return nil, fmt.Errorf("band %d %q: len(X) = %d, len(Lo) = %d, len(Hi) = %d", bi, b.Label, len(b.X), len(b.Lo), len(b.Hi))
		}
		cb := cleanBand{src: b}
		for i := range b.X {
			if !point([]float64{b.X[i], b.Lo[i], b.Hi[i]}, []bool{p.LogX, p.LogY, p.LogY}) {
				continue
			}
			x, lo, hi := ax(b.X[i]), ay(b.Lo[i]), ay(b.Hi[i])
			cb.upper = append(cb.upper, plotter.XY{X: x, Y: hi})
			cb.lower = append(cb.lower, plotter.XY{X: x, Y: lo})
			d.x.add(x)
			d.y.add(lo)
			d.y.add(hi)
		}
		d.bands = append(d.bands, cb)
	}
	return d, nil
}

// errorBar returns the distances below and above y of the error bar
// y ± e. A NaN or infinite e gives no bar; on a log axis a lower end at or
// below zero is moved up to y/10; an upper end that overflows is dropped.
func errorBar(y, e float64, logY bool) (lo, hi float64) {
	if math.IsNaN(e) || math.IsInf(e, 0) {
		return 0, 0
	}
	e = math.Abs(e)
	lo, hi = e, e
	if logY && y-e <= 0 {
		lo = y - y/10
	}
	if logY && !(y-lo > 0) { // y so small that y/10 underflows
		lo = 0
	}
	if math.IsInf(y+hi, 0) {
		hi = 0
	}
	if math.IsInf(y-lo, 0) {
		lo = 0
	}
	return lo, hi
}

// note returns the text to show above the panel: its own Note, or a count
// of the values left out, or "no data" for a panel with nothing to draw.
func (d *panelData) note() string {
	if d.panel.Note != "" {
		return d.panel.Note
	}
	var s string
	switch {
	case d.nonPos > 0 && d.nonFinite > 0:
		s = fmt.Sprintf("%s ≤ 0 and %d NaN/Inf not shown", count(d.nonPos, "point"), d.nonFinite)
	case d.nonPos > 0:
		s = fmt.Sprintf("%s ≤ 0 not shown", count(d.nonPos, "point"))
	case d.nonFinite > 0:
		s = fmt.Sprintf("%s NaN/Inf not shown", count(d.nonFinite, "point"))
	case !d.x.ok && !d.y.ok:
		s = "no data"
	}
	return s
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// shareRanges sets the range picked by axis of every panel to the union
// of the ranges of all panels with the same log flag and group.
func shareRanges(data []*panelData, axis func(*panelData) *axisRange, isLog func(*panelData) bool, group func(*panelData) int) {
	type id struct {
		log   bool
		group int
	}
	union := map[id]axisRange{}
	for _, d := range data {
		if d != nil {
			k := id{isLog(d), group(d)}
			u := union[k]
			u.union(*axis(d))
			union[k] = u
		}
	}
	for _, d := range data {
		if d != nil {
			*axis(d) = union[id{isLog(d), group(d)}]
		}
	}
}

// panelPlot is a Panel turned into a gonum plot.
type panelPlot struct {
	plot *plot.Plot
	note string
}

// buildPanel makes the gonum plot of a cleaned panel whose grid cell is
// pw×ph. If reserveNote, it leaves room for a note line even if the panel
// has no note, so that titles in a row line up.
func buildPanel(d *panelData, pw, ph vg.Length, reserveNote bool) *panelPlot {
	p := d.panel
	pl := plot.New()
	pl.BackgroundColor = nil // the figure paints the background once

	pl.Title.Text = p.Title
	pl.Title.TextStyle = textStyle(panelTitleSize, false)
	pl.Title.TextStyle.YAlign = draw.YTop
	pl.Title.Padding = titlePadBot
	note := d.note()
	if note != "" || reserveNote {
		// Reserve a line between the title and the data for the note.
		if pl.Title.Text == "" {
			pl.Title.Text = " "
		}
		pl.Title.Padding += textStyle(noteSize, false).Height("0") + noteGap
	}

	// First estimates of the data area (the cell less the room taken by
	// the title, axis labels, tick labels, ticks and padding), for the log
	// tickers to thin their labels by; fitTickers refines them once the
	// grid is laid out.
	xLen := max(pw-85, 30)
	yLen := max(ph-95, 30)
	setAxis(&pl.X, p.XLabel, p.LogX, xLen, false)
	setAxis(&pl.Y, p.YLabel, p.LogY, yLen, true)
	if len(p.XTicks) > 0 {
		pl.X.Tick.Marker = valueTicker{values: p.XTicks, style: pl.X.Tick.Label, length: xLen, log: p.LogX}
	}

	grid := plotter.NewGrid()
	grid.Vertical = draw.LineStyle{Color: gridLineColor, Width: vg.Points(0.5)}
	grid.Horizontal = grid.Vertical
	pl.Add(grid)

	// Layers from back to front: bands, baselines, bounds, fits, data.
	for _, b := range d.bands {
		if len(b.upper) < 2 {
			continue
		}
		ring := append(plotter.XYs{}, b.upper...)
		for i := len(b.lower) - 1; i >= 0; i-- {
			ring = append(ring, b.lower[i])
		}
		poly := &plotter.Polygon{XYs: []plotter.XYs{ring}, Color: translucent(Color(b.src.Style))}
		pl.Add(poly)
	}
	for _, y := range d.hlines {
		pl.Add(hline{y: y})
	}
	layer := func(keep func(*Series) bool) {
		for _, s := range d.series {
			if keep(s.src) {
				addSeries(pl, s)
			}
		}
	}
	layer(func(s *Series) bool { return s.Dark })
	layer(func(s *Series) bool { return s.Dashed && !s.Dark })
	layer(hasMarkers)

	// Set the ranges last: Add widened them from each plotter's data.
	pl.X.Min, pl.X.Max = d.x.final(p.LogX)
	pl.Y.Min, pl.Y.Max = d.y.final(p.LogY)
	return &panelPlot{plot: pl, note: note}
}

// setAxis styles one axis of a panel.
func setAxis(a *plot.Axis, label string, log bool, length vg.Length, vertical bool) {
	a.Label.Text = label
	a.Label.TextStyle = textStyle(axisLabelSize, false)
	a.Label.Padding = vg.Points(2)
	a.Padding = vg.Points(3)
	a.Tick.Length = vg.Points(4)
	sty := textStyle(tickLabelSize, false)
	if vertical {
		sty.XAlign, sty.YAlign = draw.XRight, draw.YCenter
	} else {
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	}
	a.Tick.Label = sty
	// Both kinds of axis are linear: a log axis holds log10 of the data
	// (see logTicker).
	a.Scale = plot.LinearScale{}
	if log {
		sty.Handler = supHandler
		a.Tick.Label = sty
		a.Tick.Marker = logTicker{style: sty, length: length, vertical: vertical}
	} else {
		a.Tick.Marker = plot.DefaultTicks{}
	}
}

// fitTickers sets the axis lengths of p's log tickers from its data
// area dc, less a margin for the small change that relabelling makes.
func fitTickers(p *plot.Plot, dc draw.Canvas) {
	const margin = 0.95
	if t, ok := p.X.Tick.Marker.(logTicker); ok {
		t.length = max(margin*(dc.Max.X-dc.Min.X), 1)
		p.X.Tick.Marker = t
	}
	if t, ok := p.X.Tick.Marker.(valueTicker); ok {
		t.length = max(margin*(dc.Max.X-dc.Min.X), 1)
		p.X.Tick.Marker = t
	}
	if t, ok := p.Y.Tick.Marker.(logTicker); ok {
		t.length = max(margin*(dc.Max.Y-dc.Min.Y), 1)
		p.Y.Tick.Marker = t
	}
}

// plotAdder is what addSeries draws on: a *plot.Plot.
type plotAdder interface{ Add(...plot.Plotter) }

// addSeries adds a cleaned series to pl: error bars, then the line, then
// the markers.
func addSeries(pl plotAdder, s cleanSeries) {
	if len(s.xys) == 0 {
		return
	}
	ls := seriesLineStyle(s.src)
	if s.errs != nil {
		bars := &plotter.YErrorBars{
			XYs:       s.xys,
			YErrors:   s.errs,
			LineStyle: draw.LineStyle{Color: ls.Color, Width: errBarWidth},
			CapWidth:  errCapWidth,
		}
		pl.Add(bars)
	}
	if len(s.xys) > 1 && !(hasMarkers(s.src) && s.src.Points) {
		pl.Add(&plotter.Line{XYs: s.xys, LineStyle: ls})
	}
	if hasMarkers(s.src) && (len(s.xys) <= MaxMarkers || s.src.Points) || len(s.xys) == 1 {
		// A lone point of a fit or bound still needs a mark to be seen.
		pl.Add(&plotter.Scatter{XYs: s.xys, GlyphStyle: glyphStyle(s.src.Style)})
	}
}

// drawNote draws the panel's note right-aligned above its data area, in
// the space that buildPanel reserved below the title.
func (pp *panelPlot) drawNote(tile draw.Canvas) {
	if pp.note == "" {
		return
	}
	dc := pp.plot.DataCanvas(tile)
	sty := textStyle(noteSize, false)
	sty.Color = noteColor
	sty.XAlign = draw.XRight
	tile.FillText(sty, vg.Point{X: dc.Max.X, Y: dc.Max.Y + noteGap}, pp.note)
}

// hline is a plotter for a horizontal reference line across the data area.
type hline struct{ y float64 }

// Plot implements plot.Plotter.
func (h hline) Plot(c draw.Canvas, pl *plot.Plot) {
	_, trY := pl.Transforms(&c)
	y := trY(h.y)
	c.StrokeLine2(baselineStyle(), c.Min.X, y, c.Max.X, y)
}
