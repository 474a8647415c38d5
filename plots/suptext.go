package plots

import (
	"math"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// supText is a text.Handler for one-line labels with superscripts written
// as "10^{−3}": the part in braces is drawn smaller and raised. The
// embedded fonts lack the superscript characters ⁰, ⁹ and ⁻, so tick labels
// cannot simply use Unicode superscripts. Text without "^{" is drawn like
// text.Plain draws it.
type supText struct {
	text.Plain
}

// supHandler draws tick labels. font.DefaultCache holds the Liberation
// fonts once package plot is initialized.
var supHandler text.Handler = supText{Plain: text.Plain{Fonts: font.DefaultCache}}

const (
	supScale = 0.72 // superscript size relative to the base font
	supRaise = 0.42 // superscript baseline above the base baseline, in font sizes
)

// segment is a run of text, raised if sup.
type segment struct {
	s   string
	sup bool
}

// segments splits "a^{b}c" into a, raised b, c. An unclosed "^{" is text.
func segments(txt string) []segment {
	var segs []segment
	for txt != "" {
		i := strings.Index(txt, "^{")
		if i < 0 {
			break
		}
		j := strings.IndexByte(txt[i:], '}')
		if j < 0 {
			break
		}
		if i > 0 {
			segs = append(segs, segment{s: txt[:i]})
		}
		segs = append(segs, segment{s: txt[i+2 : i+j], sup: true})
		txt = txt[i+j+1:]
	}
	if txt != "" {
		segs = append(segs, segment{s: txt})
	}
	return segs
}

func (h supText) faces(fnt font.Font) (base, sup font.Face) {
	sf := fnt
	sf.Size = fnt.Size * supScale
	return h.Fonts.Lookup(fnt, fnt.Size), h.Fonts.Lookup(sf, sf.Size)
}

// Box implements text.Handler.
func (h supText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	base, sup := h.faces(fnt)
	height, depth = base.Extents().Ascent, base.Extents().Descent
	for _, sg := range segments(txt) {
		if sg.sup {
			width += sup.Width(sg.s)
			height = vg.Length(math.Max(float64(height), float64(supRaise*fnt.Size+sup.Extents().Ascent)))
		} else {
			width += base.Width(sg.s)
		}
	}
	return width, height, depth
}

// Draw implements text.Handler, placing the text as text.Plain places a
// single line.
func (h supText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if txt == "" {
		return
	}
	base, sup := h.faces(sty.Font)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		defer c.Pop()
		c.Rotate(sty.Rotation)
	}
	sin64, cos64 := math.Sincos(sty.Rotation)
	cos, sin := vg.Length(cos64), vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin

	w, ht, dp := h.Box(txt, sty.Font)
	x := pt.X + vg.Length(sty.XAlign)*w
	baseline := pt.Y + (ht+dp)*vg.Length(sty.YAlign) - base.Extents().Ascent + sty.Font.Size
	for _, sg := range segments(txt) {
		if sg.sup {
			c.FillString(sup, vg.Point{X: x, Y: baseline + supRaise*sty.Font.Size}, sg.s)
			x += sup.Width(sg.s)
		} else {
			c.FillString(base, vg.Point{X: x, Y: baseline}, sg.s)
			x += base.Width(sg.s)
		}
	}
}
