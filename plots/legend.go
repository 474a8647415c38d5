package plots

import (
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// entryKind is what a legend entry stands for; it picks the glyph.
type entryKind int

const (
	kindSeries entryKind = iota // line with markers
	kindFit                     // dashed line
	kindBound                   // thick dark line
	kindBand                    // filled box
	kindHLine                   // red dashed line
)

// legendEntry is one entry of the shared legend.
type legendEntry struct {
	kind   entryKind
	label  string
	style  int
	dashed bool // for kindBound: a dashed bound
	points bool // for kindSeries: markers without a line
}

// key identifies entries that are merged into one.
func (e legendEntry) key() legendEntry {
	if e.kind == kindHLine {
		e.style = 0
	}
	return e
}

// collectLegend gathers the labelled items of all panels, one entry per
// label and kind (and style), grouped by kind in the order series, fits,
// bounds, bands, baselines, and within a kind in order of first
// appearance.
func collectLegend(panels []Panel) []legendEntry {
	var byKind [kindHLine + 1][]legendEntry
	seen := map[legendEntry]bool{}
	add := func(e legendEntry) {
		if e.label == "" || seen[e.key()] {
			return
		}
		seen[e.key()] = true
		byKind[e.kind] = append(byKind[e.kind], e)
	}
	for i := range panels {
		p := &panels[i]
		for _, s := range p.Series {
			e := legendEntry{kind: kindSeries, label: s.Label, style: s.Style, points: s.Points && hasMarkers(&s)}
			switch {
			case s.Dark:
				e.kind, e.dashed = kindBound, s.Dashed
			case s.Dashed:
				e.kind = kindFit
			}
			add(e)
		}
		for _, b := range p.Bands {
			add(legendEntry{kind: kindBand, label: b.Label, style: b.Style})
		}
		for _, h := range p.HLines {
			add(legendEntry{kind: kindHLine, label: h.Label})
		}
	}
	var all []legendEntry
	for _, es := range byKind {
		all = append(all, es...)
	}
	return all
}

// Legend geometry, in points.
const (
	thumbWidth = vg.Length(24) // width of an entry's glyph
	thumbGap   = vg.Length(4)  // between glyph and text
	entryGap   = vg.Length(14) // between entries in a row
	rowGap     = vg.Length(2)  // between rows
)

// legendLayout places the entries on a grid of equal columns: plain series
// on the first rows, fits on the next, and bounds, bands and baselines
// after, each group starting a new row, so that a reader finds β values
// in the same column of each group.
type legendLayout struct {
	rows      [][]legendEntry
	colWidth  vg.Length
	rowHeight vg.Length
	height    vg.Length
	style     text.Style
}

func layoutLegend(entries []legendEntry, width vg.Length) legendLayout {
	l := legendLayout{style: textStyle(legendSize, false)}
	if len(entries) == 0 {
		return l
	}
	for _, e := range entries {
		// 10% slack for SVG viewers that substitute a wider font.
		l.colWidth = max(l.colWidth, thumbWidth+thumbGap+1.1*l.style.Width(e.label))
		l.rowHeight = max(l.rowHeight, l.style.Height(e.label))
	}
	cols := max(1, int((width+entryGap)/(l.colWidth+entryGap)))
	// Groups: series, fits, and the reference items together.
	group := func(k entryKind) int { return min(int(k), int(kindBound)) }
	var row []legendEntry
	for i, e := range entries {
		if len(row) == cols || (i > 0 && len(row) > 0 && group(e.kind) != group(entries[i-1].kind)) {
			l.rows = append(l.rows, row)
			row = nil
		}
		row = append(row, e)
	}
	l.rows = append(l.rows, row)
	n := vg.Length(len(l.rows))
	l.height = n*l.rowHeight + (n-1)*rowGap
	return l
}

// draw draws the legend centred in the strip c.
func (l *legendLayout) draw(c draw.Canvas) {
	cols := 0
	for _, r := range l.rows {
		cols = max(cols, len(r))
	}
	total := vg.Length(cols)*l.colWidth + vg.Length(cols-1)*entryGap
	x0 := c.Center().X - total/2
	y := c.Max.Y
	for _, r := range l.rows {
		y -= l.rowHeight
		for j, e := range r {
			x := x0 + vg.Length(j)*(l.colWidth+entryGap)
			thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y},
				Max: vg.Point{X: x + thumbWidth, Y: y + l.rowHeight},
			}}
			drawThumb(&thumb, e)
			sty := l.style
			sty.YAlign = draw.YCenter
			sty.XAlign = draw.XLeft
			c.FillText(sty, vg.Point{X: x + thumbWidth + thumbGap, Y: y + l.rowHeight/2}, e.label)
		}
		y -= rowGap
	}
}

// drawThumb draws the glyph of a legend entry in c.
func drawThumb(c *draw.Canvas, e legendEntry) {
	mid := c.Center()
	switch e.kind {
	case kindSeries:
		if !e.points {
			s := Series{Style: e.style}
			c.StrokeLine2(seriesLineStyle(&s), c.Min.X, mid.Y, c.Max.X, mid.Y)
		}
		c.DrawGlyph(glyphStyle(e.style), mid)
	case kindFit, kindBound:
		s := Series{Style: e.style, Dashed: e.kind == kindFit || e.dashed, Dark: e.kind == kindBound}
		c.StrokeLine2(seriesLineStyle(&s), c.Min.X, mid.Y, c.Max.X, mid.Y)
	case kindBand:
		h := (c.Max.Y - c.Min.Y) * 0.7
		r := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: mid.Y - h/2}, Max: vg.Point{X: c.Max.X, Y: mid.Y + h/2}}
		c.SetColor(translucent(Color(e.style)))
		c.Fill(r.Path())
	case kindHLine:
		c.StrokeLine2(baselineStyle(), c.Min.X, mid.Y, c.Max.X, mid.Y)
	}
}
