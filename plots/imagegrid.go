package plots

import (
	"image/png"
	"io"

	"errors"
	"fmt"
	"github.com/drdam/drdam/internal/atomicfile"
	"image"
	"image/color"
	"image/draw"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Grid layout, in pixels of the output.
const (
	gridMargin    = 10  // white border around everything
	gridGutter    = 4   // white space between cells
	gridTextPad   = 6   // space between a text and the cells
	gridMinCell   = 128 // automatic scale: the largest cell is at least this big
	titleFontSize = 20  // pixels per em of the title
	labelFontSize = 16  // pixels per em of column titles and row labels
)

// ImageGrid is a figure of images in rows and columns (image completions
// beside their queries and originals), saved as a PNG by Save: an optional
// Title at the top, optional ColTitles above the columns and RowLabels at
// the left of the rows (a "\n" starts a new line), and Cells, each an
// image (nil = blank), enlarged by an integer factor with nearest-neighbour
// sampling so that 32×32 and 64×64 images stay crisp, separated by thin
// white gutters.
//
// Cells[i][j] is the image in row i, column j; rows may have different
// lengths. Images of different sizes may be mixed: a column is as wide as its
// widest cell (or its title), a row as tall as its tallest cell, and smaller
// images are centred in their cell.
type ImageGrid struct {
	Title     string          // drawn centred above everything; "" for none
	ColTitles []string        // ColTitles[j] is drawn above column j; nil for none
	RowLabels []string        // RowLabels[i] is drawn left of row i; nil for none
	Cells     [][]image.Image // Cells[i][j]: row i, column j; nil = blank
	// Scale is the integer enlargement of every image; 0 picks the
	// smallest factor that makes the largest image at least 128 pixels on
	// its longer side (4 for 32×32 images, 2 for 64×64).
	Scale int
}

var parsedFont = sync.OnceValues(func() (*opentype.Font, error) {
	return opentype.Parse(goregular.TTF)
})

// newFace returns a Go Regular face of size px pixels per em. Faces are not
// safe for concurrent use, so each Save makes its own.
func newFace(px float64) (font.Face, error) {
	f, err := parsedFont()
	if err != nil {
		return nil, err
	}
	return opentype.NewFace(f, &opentype.FaceOptions{Size: px, DPI: 72, Hinting: font.HintingFull})
}

// textBlock is a possibly multi-line text with its measured size.
type textBlock struct {
	lines []string
	w, h  int
}

func measure(face font.Face, s string) textBlock {
	if s == "" {
		return textBlock{}
	}
	lines := strings.Split(s, "\n")
	t := textBlock{lines: lines, h: len(lines) * face.Metrics().Height.Ceil()}
	for _, l := range lines {
		t.w = max(t.w, font.MeasureString(face, l).Ceil())
	}
	return t
}

// drawText draws t with its box's top-left corner at (x, y); align is
// 0 (left), 1 (centre) or 2 (right) within width w.
func drawText(dst draw.Image, face font.Face, t textBlock, x, y, w, align int) {
	m := face.Metrics()
	lh := m.Height.Ceil()
	d := font.Drawer{Dst: dst, Src: image.NewUniform(color.Black), Face: face}
	for i, l := range t.lines {
		lw := font.MeasureString(face, l).Ceil()
		lx := x
		switch align {
		case 1:
			lx = x + (w-lw)/2
		case 2:
			lx = x + w - lw
		}
		// The baseline sits one ascent below the top of the line, with
		// the line's extra leading split above and below.
		base := y + i*lh + (lh-(m.Ascent+m.Descent).Ceil())/2 + m.Ascent.Ceil()
		d.Dot = fixed.P(lx, base)
		d.DrawString(l)
	}
}

// Image renders the grid (see ImageGrid and Save) and returns it.
func (g *ImageGrid) Image() (*image.RGBA, error) {
	nrows := max(len(g.Cells), len(g.RowLabels))
	ncols := len(g.ColTitles)
	maxSide := 0
	for i, row := range g.Cells {
		ncols = max(ncols, len(row))
		for j, im := range row {
			if im == nil {
				continue
			}
			b := im.Bounds()
			if b.Empty() {
				return nil, fmt.Errorf("cell (%d, %d) is an empty %d×%d image", i, j, b.Dy(), b.Dx())
			}
			maxSide = max(maxSide, b.Dy(), b.Dx())
		}
	}
	if nrows == 0 || ncols == 0 || maxSide == 0 {
		return nil, errors.New("grid has no images")
	}
	scale := g.Scale
	switch {
	case scale < 0:
		return nil, fmt.Errorf("grid scale %d is negative", scale)
	case scale == 0:
		scale = max(1, (gridMinCell+maxSide-1)/maxSide)
	}
	if maxSide*scale > 1<<14 {
		return nil, fmt.Errorf("grid scale %d makes %d-pixel cells, above %d", scale, maxSide*scale, 1<<14)
	}

	titleFace, err := newFace(titleFontSize)
	if err != nil {
		return nil, err
	}
	defer titleFace.Close()
	labelFace, err := newFace(labelFontSize)
	if err != nil {
		return nil, err
	}
	defer labelFace.Close()

	// Column widths and row heights: the largest cell, or the largest
	// image of the grid for an empty column or row.
	colW, rowH := make([]int, ncols), make([]int, nrows)
	for i := range nrows {
		for j := range ncols {
			if im := g.cell(i, j); im != nil {
				colW[j] = max(colW[j], im.Bounds().Dx()*scale)
				rowH[i] = max(rowH[i], im.Bounds().Dy()*scale)
			}
		}
	}
	for j := range colW {
		if colW[j] == 0 {
			colW[j] = maxSide * scale
		}
	}
	for i := range rowH {
		if rowH[i] == 0 {
			rowH[i] = maxSide * scale
		}
	}

	// Texts.
	title := measure(titleFace, g.Title)
	colT := make([]textBlock, ncols)
	colTH := 0
	for j, s := range g.ColTitles {
		colT[j] = measure(labelFace, s)
		if colT[j].w > 0 {
			// Keep titles wider than their cells apart.
			colW[j] = max(colW[j], colT[j].w+2*gridTextPad)
		}
		colTH = max(colTH, colT[j].h)
	}
	rowL := make([]textBlock, nrows)
	rowLW := 0
	for i, s := range g.RowLabels {
		rowL[i] = measure(labelFace, s)
		rowLW = max(rowLW, rowL[i].w)
	}

	// Layout.
	x0 := gridMargin
	if rowLW > 0 {
		x0 += rowLW + gridTextPad
	}
	y0 := gridMargin
	if title.h > 0 {
		y0 += title.h + gridTextPad
	}
	yCells := y0
	if colTH > 0 {
		yCells += colTH + gridTextPad/2
	}
	colX := make([]int, ncols)
	x := x0
	for j := range ncols {
		colX[j] = x
		x += colW[j] + gridGutter
	}
	rowY := make([]int, nrows)
	y := yCells
	for i := range nrows {
		rowY[i] = y
		y += rowH[i] + gridGutter
	}
	width := max(x-gridGutter+gridMargin, title.w+2*gridMargin)
	height := y - gridGutter + gridMargin

	out := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(out, out.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	if title.h > 0 {
		drawText(out, titleFace, title, 0, gridMargin, width, 1)
	}
	for j := range ncols {
		if colT[j].h > 0 {
			// Bottom-align titles of different heights.
			drawText(out, labelFace, colT[j], colX[j], y0+colTH-colT[j].h, colW[j], 1)
		}
	}
	for i := range nrows {
		if rowL[i].h > 0 {
			drawText(out, labelFace, rowL[i], gridMargin, rowY[i]+(rowH[i]-rowL[i].h)/2, rowLW, 2)
		}
		for j := range ncols {
			im := g.cell(i, j)
			if im == nil {
				continue
			}
			b := im.Bounds()
			cx := colX[j] + (colW[j]-b.Dx()*scale)/2
			cy := rowY[i] + (rowH[i]-b.Dy()*scale)/2
			blit(out, toRGBA(im), cx, cy, scale)
		}
	}
	return out, nil
}

// cell returns Cells[i][j], or nil outside the ragged rows.
func (g *ImageGrid) cell(i, j int) image.Image {
	if i < len(g.Cells) && j < len(g.Cells[i]) {
		return g.Cells[i][j]
	}
	return nil
}

// toRGBA returns im as an *image.RGBA with bounds from (0, 0).
func toRGBA(im image.Image) *image.RGBA {
	if r, ok := im.(*image.RGBA); ok && r.Bounds().Min == (image.Point{}) {
		return r
	}
	b := im.Bounds()
	r := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(r, r.Bounds(), im, b.Min, draw.Src)
	return r
}

// blit copies src into dst at (x, y), each pixel as a scale×scale block.
func blit(dst, src *image.RGBA, x, y, scale int) {
	b := src.Bounds()
	for r := 0; r < b.Dy(); r++ {
		for c := 0; c < b.Dx(); c++ {
			si := src.PixOffset(c, r)
			px := src.Pix[si : si+4 : si+4]
			for dy := range scale {
				di := dst.PixOffset(x+c*scale, y+r*scale+dy)
				for dx := range scale {
					copy(dst.Pix[di+4*dx:di+4*dx+4], px)
				}
			}
		}
	}
}

// Save renders the grid and writes it to path as a PNG, atomically: through
// a temporary file in the same folder, renamed over path. It is an error if
// the grid has no images, Scale is negative, or a cell is malformed; errors
// name the path.
func (g *ImageGrid) Save(path string) error {
	img, err := g.Image()
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return png.Encode(w, img) })
}
