package plots

import (
	"image/color"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette is the Okabe–Ito colour-blind-safe palette, reordered so that the
// first four colours (the usual number of β lines) are the most distinct
// from each other and from the red baseline, and with its yellow darkened
// to stay visible on white.
var palette = [...]color.NRGBA{
	{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}, // blue
	{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}, // orange
	{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}, // bluish green
	{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF}, // reddish purple
	{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF}, // sky blue
	{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF}, // vermillion
	{R: 0x9A, G: 0x8A, B: 0x00, A: 0xFF}, // dark yellow (olive)
	{R: 0x00, G: 0x00, B: 0x00, A: 0xFF}, // black
}

// PaletteSize is the number of distinct colours in the palette; Style
// indices repeat with this period.
const PaletteSize = len(palette)

// baselineColor is the colour of HLines: a red that differs from every
// palette colour.
var baselineColor = color.NRGBA{R: 0xD6, G: 0x27, B: 0x28, A: 0xFF}

// Color returns the palette colour of a Style index. Indices wrap around
// modulo PaletteSize, and negative indices are allowed, so every int is a
// valid style.
func Color(style int) color.NRGBA {
	return palette[styleIndex(style)]
}

func styleIndex(style int) int {
	i := style % PaletteSize
	if i < 0 {
		i += PaletteSize
	}
	return i
}

// darken returns c with its RGB channels scaled towards black, for Dark
// series (theoretical bounds).
func darken(c color.NRGBA) color.NRGBA {
	const f = 0.6
	return color.NRGBA{R: uint8(float64(c.R) * f), G: uint8(float64(c.G) * f), B: uint8(float64(c.B) * f), A: c.A}
}

// translucent returns c with the opacity used for Bands.
func translucent(c color.NRGBA) color.NRGBA {
	c.A = 0x40
	return c
}

// glyphs are the marker shapes, indexed like palette, so that lines stay
// distinguishable in greyscale print too.
var glyphs = [...]draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.BoxGlyph{},
	draw.PyramidGlyph{},
	diamondGlyph{},
	draw.RingGlyph{},
	invertedPyramidGlyph{},
	draw.SquareGlyph{},
	draw.CrossGlyph{},
}

// diamondGlyph is a filled diamond (a square standing on a corner).
type diamondGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(sty.Color)
	r := sty.Radius * 1.25
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	c.Fill(p)
}

// invertedPyramidGlyph is a filled triangle pointing down.
type invertedPyramidGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (invertedPyramidGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(sty.Color)
	r := sty.Radius * 1.2
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r*0.866, Y: pt.Y + r/2})
	p.Line(vg.Point{X: pt.X - r*0.866, Y: pt.Y + r/2})
	p.Close()
	c.Fill(p)
}

// Line widths, dash patterns and sizes, in one place.
var (
	seriesWidth   = vg.Points(1.2)
	darkWidth     = vg.Points(2.4)
	errBarWidth   = vg.Points(0.8)
	errCapWidth   = vg.Points(4)
	hlineWidth    = vg.Points(1.3)
	markerRadius  = vg.Points(2.4)
	fitDashes     = []vg.Length{vg.Points(5), vg.Points(2.5)}
	baselineDash  = []vg.Length{vg.Points(6), vg.Points(3)}
	gridLineColor = color.Gray{Y: 0xE4}
	noteColor     = color.Gray{Y: 0x50} // panel notes and the caption
)

// seriesLineStyle returns the line style of a series.
func seriesLineStyle(s *Series) draw.LineStyle {
	ls := draw.LineStyle{Color: Color(s.Style), Width: seriesWidth}
	if s.Dark {
		ls.Color = darken(Color(s.Style))
		ls.Width = darkWidth
	}
	if s.Dashed {
		ls.Dashes = fitDashes
	}
	return ls
}

// hasMarkers reports whether a series is drawn with markers: plain
// measured series are, fitted curves and bounds are not.
func hasMarkers(s *Series) bool { return !s.Dashed && !s.Dark }

// MaxMarkers is the largest number of points a series is drawn with
// markers; a longer one (an energy trace) is drawn as a plain line, since
// its markers would merge into a thick smear.
const MaxMarkers = 40

func glyphStyle(style int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: Color(style), Radius: markerRadius, Shape: glyphs[styleIndex(style)]}
}

func baselineStyle() draw.LineStyle {
	return draw.LineStyle{Color: baselineColor, Width: hlineWidth, Dashes: baselineDash}
}

// Fonts: Liberation Sans (embedded in gonum.org/v1/plot), sizes in points.
const (
	figureTitleSize = 14
	panelTitleSize  = 11
	axisLabelSize   = 10
	tickLabelSize   = 9
	legendSize      = 10
	noteSize        = 8
)

func textStyle(size float64, bold bool) text.Style {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(size)}
	if bold {
		f.Weight = xfont.WeightBold
	}
	return text.Style{
		Color:   color.Black,
		Font:    f,
		XAlign:  draw.XCenter,
		YAlign:  draw.YBottom,
		Handler: plot.DefaultTextHandler,
	}
}
