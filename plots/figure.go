package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/drdam/drdam/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one line of points (X[i], Y[i]), drawn in the order given,
// with optional symmetric error bars Y[i] ± Err[i].
type Series struct {
	// Label is the legend text. Series with the same Label, Style and kind
	// (plain, Dashed or Dark) get one legend entry for the whole figure;
	// an empty Label gives none.
	Label string
	// X and Y are the coordinates; they must have the same length.
	X, Y []float64
	// Err holds the half-widths of the error bars (standard errors, or
	// half the width of confidence intervals), drawn as capped bars from
	// Y-Err to Y+Err. It is nil, or as long as Y. A NaN or infinite error
	// draws no bar.
	Err []float64
	// Style is an index into the palette: the same Style has the same
	// colour, and marker shape, in every panel. See Color.
	Style int
	// Dashed draws a dashed line without markers, for fitted curves.
	Dashed bool
	// Dark draws a darker, thicker line without markers, for theoretical
	// bounds.
	Dark bool
	// Points draws the markers and error bars without a connecting line,
	// as the paper draws its measured errors in Fig. 3. It has no effect
	// on Dashed or Dark series.
	Points bool
}

// HLine is a horizontal reference line across a panel, drawn red and
// dashed like the paper's random-guess baseline. The panel's Y range always
// includes it.
type HLine struct {
	Label string  // legend text; HLines with the same Label share an entry
	Y     float64 // height in data coordinates
}

// Band is a translucent area between Lo[i] and Hi[i] over X[i], in the
// colour of Style, for example between a theoretical bound and a measured
// line. X, Lo and Hi must have the same length.
type Band struct {
	Label     string // legend text; Bands with the same Label and Style share an entry
	X, Lo, Hi []float64
	Style     int
}

// Panel is one plot of a Figure's grid.
type Panel struct {
	Title          string // drawn above the panel
	XLabel, YLabel string // axis labels
	LogX, LogY     bool   // logarithmic axes
	Series         []Series
	HLines         []HLine
	Bands          []Band
	// YInclude holds values the Y range always includes, e.g. 0 and ½
	// for a Hamming error; values that cannot be drawn on the axis are
	// ignored.
	YInclude []float64
	// XTicks, if not empty, marks the X axis (linear or log) at these
	// values (the measured Y or K, as the paper marks its axes), labelled
	// briefly (40k) where the labels fit.
	XTicks []float64
	// YGroup picks the panels a Figure with ShareY shares the Y range
	// with: those of the same YGroup (for example a row each, or one for
	// the energies and one for the gradients). The zero value puts every
	// panel in one group.
	YGroup int
	// Note is a small text drawn at the top right of the panel, above the
	// data. If it is empty and some values could not be drawn (≤ 0 on a
	// log axis, NaN or infinite), the panel notes how many were left out.
	Note string
}

// isZero reports whether p is the zero Panel, which leaves its cell empty.
func (p *Panel) isZero() bool {
	return p.Title == "" && p.XLabel == "" && p.YLabel == "" && !p.LogX && !p.LogY &&
		len(p.Series) == 0 && len(p.HLines) == 0 && len(p.Bands) == 0 && p.Note == "" &&
		len(p.YInclude) == 0 && p.YGroup == 0 && len(p.XTicks) == 0
}

// Default sizes of a Figure.
const (
	DefaultPanelWidth  = 3.2 * vg.Inch
	DefaultPanelHeight = 2.6 * vg.Inch
	DefaultDPI         = 150
)

// Figure is a grid of panels, row-major, with a title and one legend
// shared by all panels.
type Figure struct {
	// Title is centred at the top of the figure; it may be empty.
	Title string
	// Rows and Cols give the shape of the grid; both must be positive.
	Rows, Cols int
	// Panels holds Rows*Cols panels, row by row. A zero Panel leaves its
	// cell empty.
	Panels []Panel
	// PanelWidth and PanelHeight are the size of one grid cell; zero means
	// DefaultPanelWidth and DefaultPanelHeight. The figure adds a margin,
	// the title and the legend strip around the grid.
	PanelWidth, PanelHeight vg.Length
	// ShareX gives every panel the same X range, the union of the panels'
	// ranges (log panels and linear panels are pooled separately); ShareY
	// does the same for Y within each Panel.YGroup, so that panels can be
	// compared by eye.
	ShareX, ShareY bool
	// Caption is a note drawn in small type below the grid, wrapped to
	// the figure's width (e.g. what the error bars are and when a fit is
	// drawn); it may be empty.
	Caption string
	// DPI is the resolution of PNG output; zero means DefaultDPI.
	DPI int
}

// Save writes the figure to path, in the format named by its extension:
// .png, .svg or .pdf. It renders the whole figure first, then writes a
// temporary file in the same directory and renames it to path, so a failed
// save never leaves a half-written file. Errors name the path.
//
// PNG and SVG output is byte-for-byte deterministic. PDF output holds the
// figure as a 300 dpi image (gonum's PDF backend cannot draw β or
// translucent bands) and records its creation time; use SVG for a vector
// figure.
func (f *Figure) Save(path string) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	var buf bytes.Buffer
	if err := f.encode(&buf, format); err != nil {
		return fmt.Errorf("plots: save %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// SaveAll writes base+".png" and base+".svg".
func (f *Figure) SaveAll(base string) error {
	for _, ext := range []string{".png", ".svg"} {
		if err := f.Save(base + ext); err != nil {
			return err
		}
	}
	return nil
}

// Encode renders the figure and writes it to w in the given format: "png",
// "svg" or "pdf" (case-insensitive, with or without a leading dot).
func (f *Figure) Encode(w io.Writer, format string) error {
	if err := f.encode(w, format); err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	return nil
}

func (f *Figure) encode(w io.Writer, format string) error {
	format = strings.ToLower(strings.TrimPrefix(format, "."))
	l, err := f.layout()
	if err != nil {
		return err
	}
	wd, ht := l.width, l.height
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(l.dpi))
		if err := l.draw(draw.New(img)); err != nil {
			return err
		}
		c = vgimg.PngCanvas{Canvas: img}
	case "svg":
		svg := vgsvg.New(wd, ht)
		if err := l.draw(draw.New(svg)); err != nil {
			return err
		}
		var buf bytes.Buffer
		if _, err := svg.WriteTo(&buf); err != nil {
			return err
		}
		_, err := w.Write(bytes.ReplaceAll(buf.Bytes(), []byte(svgFontFamily), []byte(svgFontFallback)))
		return err
	case "pdf":
		// gonum's PDF canvas encodes text as code page 1252, which has no
		// β, − or ≤, and draws translucent fills opaque; so the PDF holds
		// the figure as a 300 dpi image on a page of the figure's size.
		img := vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(pdfDPI))
		if err := l.draw(draw.New(img)); err != nil {
			return err
		}
		pdf := vgpdf.New(wd, ht)
		// vgpdf flips the page (y up) but places images in fpdf's own
		// y-down frame, which would draw the figure upside down: undo the
		// flip around the image.
		pdf.Push()
		pdf.Translate(vg.Point{Y: ht})
		pdf.Scale(1, -1)
		pdf.DrawImage(vg.Rectangle{Max: vg.Point{X: wd, Y: ht}}, img.Image())
		pdf.Pop()
		c = pdf
	case "":
		return errors.New("no file extension: want .png, .svg or .pdf")
	default:
		return fmt.Errorf("unsupported format %q: want png, svg or pdf", format)
	}
	_, err = c.WriteTo(w)
	return err
}

// The SVG names its font, Liberation Sans, without embedding it (that
// would add about 1 MB a file). Where it is not installed, viewers should
// fall back to a font with the same metrics, Arimo, Arial or Helvetica, so
// that text keeps the widths the layout was computed with.
const (
	svgFontFamily   = "font-family:Liberation Sans;"
	svgFontFallback = "font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;"
)

// pdfDPI is the resolution of the image in PDF output.
const pdfDPI = 300

// Layout constants, in points.
const (
	figMargin    = vg.Length(0.12 * vg.Inch)
	titleGap     = vg.Length(6)  // below the figure title
	legendGap    = vg.Length(8)  // below the legend strip
	tilePadX     = vg.Length(10) // between grid columns
	tilePadRight = vg.Length(16) // right of the last column
	tilePadY     = vg.Length(8)  // between grid rows
	noteGap      = vg.Length(3)  // between a panel's note and its data area
	titlePadBot  = vg.Length(3)  // between a panel's title and its data area
)

// figureLayout is a validated figure, ready to draw.
type figureLayout struct {
	fig           *Figure
	panels        []*panelPlot // nil for empty cells
	legend        legendLayout
	caption       captionLayout
	width, height vg.Length
	titleHeight   vg.Length
	dpi           int
}

// layout validates the figure, cleans its data and computes the sizes of
// its parts.
func (f *Figure) layout() (*figureLayout, error) {
	if f.Rows <= 0 || f.Cols <= 0 {
		return nil, fmt.Errorf("figure %q: Rows and Cols must be positive, have %d×%d", f.Title, f.Rows, f.Cols)
	}
	if len(f.Panels) != f.Rows*f.Cols {
		return nil, fmt.Errorf("figure %q: %d×%d grid needs %d panels, have %d", f.Title, f.Rows, f.Cols, f.Rows*f.Cols, len(f.Panels))
	}
	if f.PanelWidth < 0 || f.PanelHeight < 0 {
		return nil, fmt.Errorf("figure %q: negative panel size %v×%v", f.Title, f.PanelWidth, f.PanelHeight)
	}
	if f.DPI < 0 {
		return nil, fmt.Errorf("figure %q: negative DPI %d", f.Title, f.DPI)
	}
	pw, ph := f.PanelWidth, f.PanelHeight
	if pw == 0 {
		pw = DefaultPanelWidth
	}
	if ph == 0 {
		ph = DefaultPanelHeight
	}
	l := &figureLayout{fig: f, dpi: f.DPI}
	if l.dpi == 0 {
		l.dpi = DefaultDPI
	}

	data := make([]*panelData, len(f.Panels))
	for i := range f.Panels {
		p := &f.Panels[i]
		if p.isZero() {
			continue
		}
		d, err := cleanPanel(p)
		if err != nil {
			return nil, fmt.Errorf("figure %q: %s: %w", f.Title, panelName(i, f.Cols, p), err)
		}
		data[i] = d
	}
	if f.ShareX {
		shareRanges(data, func(d *panelData) *axisRange { return &d.x }, func(d *panelData) bool { return d.panel.LogX }, func(*panelData) int { return 0 })
	}
	if f.ShareY {
		shareRanges(data, func(d *panelData) *axisRange { return &d.y }, func(d *panelData) bool { return d.panel.LogY }, func(d *panelData) int { return d.panel.YGroup })
	}

	gridW := vg.Length(f.Cols) * pw
	l.panels = make([]*panelPlot, len(f.Panels))
	noteInRow := make([]bool, f.Rows)
	for i, d := range data {
		if d != nil && d.note() != "" {
			noteInRow[i/f.Cols] = true
		}
	}
	for i, d := range data {
		if d != nil {
			l.panels[i] = buildPanel(d, pw, ph, noteInRow[i/f.Cols])
		}
	}
	l.legend = layoutLegend(collectLegend(f.Panels), gridW)
	if f.Title != "" {
		l.titleHeight = textStyle(figureTitleSize, true).Height(f.Title) + titleGap
	}
	l.width = gridW + 2*figMargin
	l.height = vg.Length(f.Rows)*ph + 2*figMargin + l.titleHeight
	if l.legend.height > 0 {
		l.height += l.legend.height + legendGap
	}
	l.caption = layoutCaption(f.Caption, gridW)
	if l.caption.height > 0 {
		l.height += l.caption.height + captionGap
	}
	return l, nil
}

// panelName identifies panel i in error messages.
func panelName(i, cols int, p *Panel) string {
	s := fmt.Sprintf("panel %d (row %d, col %d)", i, i/cols, i%cols)
	if p.Title != "" {
		s += fmt.Sprintf(" %q", p.Title)
	}
	return s
}

// draw draws the laid-out figure on c, turning any panic inside the
// plotting library into an error: no input may crash the caller.
func (l *figureLayout) draw(c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("figure %q: drawing failed: %v", l.fig.Title, r)
		}
	}()
	f := l.fig
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, figMargin, -figMargin, figMargin, -figMargin)

	if f.Title != "" {
		sty := textStyle(figureTitleSize, true)
		sty.YAlign = draw.YTop
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y}, f.Title)
		c.Max.Y -= l.titleHeight
	}
	if l.legend.height > 0 {
		strip := c
		strip.Min.Y = c.Max.Y - l.legend.height
		l.legend.draw(strip)
		c.Max.Y = strip.Min.Y - legendGap
	}
	if l.caption.height > 0 {
		strip := c
		strip.Max.Y = c.Min.Y + l.caption.height
		l.caption.draw(strip)
		c.Min.Y = strip.Max.Y + captionGap
	}

	plots, canvases := l.grid(c)
	for r := range plots {
		for col, p := range plots[r] {
			if p == nil {
				continue
			}
			tc := canvases[r][col]
			p.Draw(tc)
			l.panels[r*f.Cols+col].drawNote(tc)
		}
	}
	return nil
}

// grid lays out the panels' plots on c, the area below the title and the
// legend and above the caption: it returns the plots by row and column
// (nil for empty cells) and the canvas of each, on which the data areas of
// a row, and of a column, line up, and so do the titles of a row.
func (l *figureLayout) grid(c draw.Canvas) ([][]*plot.Plot, [][]draw.Canvas) {
	plots := make([][]*plot.Plot, l.fig.Rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, l.fig.Cols)
		for col := range plots[r] {
			if pp := l.panels[r*l.fig.Cols+col]; pp != nil {
				plots[r][col] = pp.plot
			}
		}
	}
	// PadRight leaves room for the last column's rightmost tick label,
	// which is centred on the axis end.
	tiles := draw.Tiles{Rows: l.fig.Rows, Cols: l.fig.Cols, PadX: tilePadX, PadY: tilePadY, PadRight: tilePadRight}
	canvases := plot.Align(plots, tiles, c)
	// Now that the data areas are known, let the log tickers thin their
	// labels for the real axis lengths instead of the estimates, and lay
	// out again (tick labels change the room the axes take, a little).
	for r := range plots {
		for col, p := range plots[r] {
			if p != nil {
				fitTickers(p, p.DataCanvas(canvases[r][col]))
			}
		}
	}
	canvases = plot.Align(plots, tiles, c)
	alignData(plots, canvases)
	return plots, canvases
}

// alignData nudges the canvases that plot.Align returned until the data
// areas of each row share their top and bottom, those of each column their
// left and right, and the canvases of a row their top, so that the panel
// titles, drawn at the top of the canvases, line up too. plot.Align alone
// is off by a few points where markers, error bars or tick labels overhang
// the data areas differently, because gonum's padding for the overhang is
// not linear in the canvas size. The targets are the innermost sides of
// each row and column, so every panel reaches them by shrinking: a larger
// padding below its title moves a data area's top down, cropping its
// canvas moves the other sides.
func alignData(plots [][]*plot.Plot, cs [][]draw.Canvas) {
	const (
		iterations = 12
		tol        = vg.Length(0.01) // points: far below a pixel
	)
	rows, cols := len(plots), len(plots[0])
	inf := vg.Length(math.Inf(1))
	for r := range rows {
		top := -inf
		for col, p := range plots[r] {
			if p != nil {
				top = max(top, cs[r][col].Max.Y)
			}
		}
		for col := range plots[r] {
			cs[r][col].Max.Y = top
		}
	}
	// The targets: the innermost sides of each row and column after
	// plot.Align, reachable by shrinking.
	top, bottom := make([]vg.Length, rows), make([]vg.Length, rows)
	left, right := make([]vg.Length, cols), make([]vg.Length, cols)
	for r := range rows {
		top[r], bottom[r] = inf, -inf
	}
	for col := range cols {
		left[col], right[col] = -inf, inf
	}
	for r := range rows {
		for col, p := range plots[r] {
			if p != nil {
				dc := p.DataCanvas(cs[r][col])
				top[r], bottom[r] = min(top[r], dc.Max.Y), max(bottom[r], dc.Min.Y)
				left[col], right[col] = max(left[col], dc.Min.X), min(right[col], dc.Max.X)
			}
		}
	}
	// Each side of a data area moves with the matching side of its
	// canvas (or the padding below the title), though not one to one and
	// a little with the other sides (the overhang padding scales with the
	// data area): secant steps on every side until all are within tol.
	type side struct {
		plot  *plot.Plot
		c     *draw.Canvas
		param *vg.Length                  // what moves the side
		err   func(draw.Canvas) vg.Length // data area side − target
		s     secant
	}
	var sides []*side
	for r := range rows {
		for col, p := range plots[r] {
			if p == nil {
				continue
			}
			c := &cs[r][col]
			t := &side{plot: p, c: c, param: &c.Max.Y, s: secant{slope: 1}}
			if p.Title.Text != "" {
				t.param, t.s.slope = &p.Title.Padding, -1
			}
			t.err = func(dc draw.Canvas) vg.Length { return dc.Max.Y - top[r] }
			sides = append(sides, t,
				&side{plot: p, c: c, param: &c.Min.Y, err: func(dc draw.Canvas) vg.Length { return dc.Min.Y - bottom[r] }, s: secant{slope: 1}},
				&side{plot: p, c: c, param: &c.Min.X, err: func(dc draw.Canvas) vg.Length { return dc.Min.X - left[col] }, s: secant{slope: 1}},
				&side{plot: p, c: c, param: &c.Max.X, err: func(dc draw.Canvas) vg.Length { return dc.Max.X - right[col] }, s: secant{slope: 1}})
		}
	}
	for range iterations {
		moved := false
		for _, sd := range sides {
			e := sd.err(sd.plot.DataCanvas(*sd.c))
			if math.Abs(float64(e)) <= float64(tol) {
				continue
			}
			*sd.param = sd.s.next(*sd.param, e)
			if sd.param == &sd.plot.Title.Padding {
				*sd.param = max(0, *sd.param)
			}
			moved = true
		}
		if !moved {
			return
		}
	}
}

// secant finds a root of err(x) by secant steps, starting from a guess of
// the slope d err / dx.
type secant struct {
	slope  float64
	x, err vg.Length
	ok     bool // x and err hold a previous step
}

// next returns the next x from the error at x.
func (s *secant) next(x, err vg.Length) vg.Length {
	if s.ok && x != s.x && err != s.err {
		if k := float64(err-s.err) / float64(x-s.x); !math.IsNaN(k) && !math.IsInf(k, 0) && k != 0 {
			s.slope = k
		}
	}
	s.x, s.err, s.ok = x, err, true
	return x - vg.Length(float64(err)/s.slope)
}
