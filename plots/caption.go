package plots

import (
	"strings"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Caption geometry.
const (
	captionSize = 9
	captionGap  = vg.Length(8) // between the grid and the caption
	captionLead = vg.Length(2) // between caption lines
)

// captionLayout is a Figure's caption broken into lines that fit its
// width.
type captionLayout struct {
	lines      []string
	lineHeight vg.Length
	height     vg.Length // of all lines, without captionGap; 0 for no caption
	style      text.Style
}

func layoutCaption(caption string, width vg.Length) captionLayout {
	l := captionLayout{style: textStyle(captionSize, false)}
	l.style.Color = noteColor
	for _, para := range strings.Split(caption, "\n") {
		l.lines = append(l.lines, wrap(para, width, l.style.Width)...)
	}
	if strings.TrimSpace(caption) == "" {
		l.lines = nil
		return l
	}
	l.lineHeight = l.style.Height("Ag")
	n := vg.Length(len(l.lines))
	l.height = n*l.lineHeight + (n-1)*captionLead
	return l
}

// wrap breaks s at spaces into lines no wider than width, as measured by
// w, with 10% slack for SVG viewers that substitute a wider font. A word
// wider than width gets a line of its own.
func wrap(s string, width vg.Length, w func(string) vg.Length) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		next := word
		if line != "" {
			next = line + " " + word
		}
		if line != "" && 1.1*w(next) > width {
			lines = append(lines, line)
			next = word
		}
		line = next
	}
	return append(lines, line)
}

// draw draws the caption left-aligned at the top of c.
func (l *captionLayout) draw(c draw.Canvas) {
	sty := l.style
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
	y := c.Max.Y
	for _, line := range l.lines {
		c.FillText(sty, vg.Point{X: c.Min.X, Y: y}, line)
		y -= l.lineHeight + captionLead
	}
}
