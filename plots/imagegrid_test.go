package plots

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drdam/drdam/internal/rng"
)

// solidImage returns an h×w image of one colour.
func solidImage(t *testing.T, h, w int, c color.RGBA) image.Image {
	t.Helper()
	im := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(im.Pix); i += 4 {
		im.Pix[i], im.Pix[i+1], im.Pix[i+2], im.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return im
}

// randomRGB returns an h×w image of random opaque colours.
func randomRGB(seed uint64, h, w int) *image.RGBA {
	im := image.NewRGBA(image.Rect(0, 0, w, h))
	s := rng.New(seed, 0)
	for i := range im.Pix {
		im.Pix[i] = uint8(s.Uint64())
		if i%4 == 3 {
			im.Pix[i] = 255
		}
	}
	return im
}

func decodePNGFile(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s does not decode: %v", path, err)
	}
	return img
}

func TestImageGridSave(t *testing.T) {
	dir := t.TempDir()
	red, blue := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}
	r, b := solidImage(t, 32, 32, red), solidImage(t, 32, 32, blue)

	// Without texts the size follows from the layout: cells of 32·4 = 128
	// pixels, gutters of 4, margins of 10.
	g := &ImageGrid{Cells: [][]image.Image{{r, nil, b}, {b, r}}}
	path := filepath.Join(dir, "plain.png")
	if err := g.Save(path); err != nil {
		t.Fatal(err)
	}
	img := decodePNGFile(t, path)
	if got, want := img.Bounds().Size(), image.Pt(2*10+3*128+2*4, 2*10+2*128+4); got != want {
		t.Fatalf("grid size %v, want %v", got, want)
	}
	at := func(x, y int) color.RGBA {
		r, g, b, a := img.At(x, y).RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
	}
	white := color.RGBA{255, 255, 255, 255}
	for _, tc := range []struct {
		x, y int
		want color.RGBA
	}{
		{10, 10, red}, {10 + 127, 10 + 127, red}, // row 0, col 0, corners
		{10 + 128, 50, white},      // gutter
		{10 + 132 + 60, 60, white}, // blank cell
		{10 + 2*132, 10, blue}, {10 + 2*132 + 127, 10 + 127, blue},
		{10, 10 + 132, blue}, {10 + 132, 10 + 132, red},
		{10 + 2*132 + 60, 10 + 132 + 60, white}, // missing cell of a short row
		{0, 0, white},
	} {
		if got := at(tc.x, tc.y); got != tc.want {
			t.Errorf("pixel (%d, %d) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}

	// Nearest-neighbour enlargement: every source pixel is a 4×4 block.
	chk := randomRGB(9, 32, 32)
	var ci image.Image = chk
	path = filepath.Join(dir, "nn.png")
	if err := (&ImageGrid{Cells: [][]image.Image{{ci}}}).Save(path); err != nil {
		t.Fatal(err)
	}
	img = decodePNGFile(t, path)
	for y := range 128 {
		for x := range 128 {
			if got, want := at(10+x, 10+y), chk.RGBAAt(x/4, y/4); got != want {
				t.Fatalf("enlarged pixel (%d, %d) = %v, want %v (source (%d, %d))", x, y, got, want, x/4, y/4)
			}
		}
	}

	// With texts: larger, and the text areas hold dark pixels.
	g = &ImageGrid{
		Title:     "Completion",
		ColTitles: []string{"occluded", "DrDAM", "MrDAM", "original"},
		RowLabels: []string{"cat", "two\nlines"},
		Cells:     [][]image.Image{{r, b, r, b}, {b, r, b, r}},
		Scale:     3,
	}
	path = filepath.Join(dir, "titled.png")
	if err := g.Save(path); err != nil {
		t.Fatal(err)
	}
	img = decodePNGFile(t, path)
	size := img.Bounds().Size()
	if size.X <= 2*10+4*96+3*4 || size.Y <= 2*10+2*96+4 {
		t.Fatalf("titled grid is only %v", size)
	}
	dark := func(x0, y0, x1, y1 int) int {
		n := 0
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				if c := at(x, y); c.R < 100 && c.G < 100 && c.B < 100 {
					n++
				}
			}
		}
		return n
	}
	if dark(0, 0, size.X, 30) < 20 {
		t.Error("no title drawn")
	}
	if dark(0, size.Y/2, 60, size.Y) < 20 {
		t.Error("no row label drawn")
	}
}

func TestImageGridErrors(t *testing.T) {
	dir := t.TempDir()
	im := image.NewRGBA(image.Rect(0, 0, 2, 2))
	for _, tc := range []struct {
		name string
		g    ImageGrid
		path string
		want string
	}{
		{"empty", ImageGrid{ColTitles: []string{"a"}}, filepath.Join(dir, "e.png"), "no images"},
		{"all nil", ImageGrid{Cells: [][]image.Image{{nil}}}, filepath.Join(dir, "n.png"), "no images"},
		{"negative scale", ImageGrid{Cells: [][]image.Image{{im}}, Scale: -1}, filepath.Join(dir, "s.png"), "negative"},
		{"empty image", ImageGrid{Cells: [][]image.Image{{im, image.NewRGBA(image.Rect(0, 0, 0, 2))}}}, filepath.Join(dir, "m.png"), "cell (0, 1)"},
		{"no folder", ImageGrid{Cells: [][]image.Image{{im}}}, filepath.Join(dir, "missing", "g.png"), ""},
	} {
		err := tc.g.Save(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s and containing %q", tc.name, err, tc.path, tc.want)
		}
		if _, err := os.Stat(tc.path); err == nil {
			t.Errorf("%s: %s was written", tc.name, tc.path)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("files left behind: %v", entries)
	}
}
