package imageio

import (
	"image"
	"image/color"
	"image/color/palette"
	"math"
	"math/rand/v2"
	"testing"
)

// randomRGB returns an h×w opaque image with random 8-bit levels.
func randomRGB(seed uint64, h, w int) *image.RGBA {
	r := rand.New(rand.NewPCG(seed, 1))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.IntN(256))
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	return img
}

// levelsOf returns the 8-bit R, G, B levels of img in H×W×C order, as an
// opaque image over white would have them.
func levelsOf(img image.Image) []uint8 {
	b := img.Bounds()
	var out []uint8
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			out = append(out, uint8(r>>8), uint8(g>>8), uint8(bl>>8))
		}
	}
	return out
}

func equalLevels(t *testing.T, got, want []uint8) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d levels, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("level %d (pixel %d, channel %d) is %d, want %d", i, i/3, i%3, got[i], want[i])
		}
	}
}

// TestRoundTrip8Bit converts 8-bit images of every common colour model to
// patterns at their own size and back: the levels must come back exactly.
func TestRoundTrip8Bit(t *testing.T) {
	const h, w = 7, 5
	rgba := randomRGB(1, h, w)
	gray := image.NewGray(image.Rect(0, 0, w, h))
	pal := image.NewPaletted(image.Rect(0, 0, w, h), palette.Plan9)
	gray16 := image.NewGray16(image.Rect(0, 0, w, h))
	rgba64 := image.NewRGBA64(image.Rect(0, 0, w, h))
	nrgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := rgba.RGBAAt(x, y)
			gray.SetGray(x, y, color.Gray{c.R})
			pal.SetColorIndex(x, y, uint8(x*h+y))
			gray16.SetGray16(x, y, color.Gray16{uint16(c.G) * 257})
			rgba64.SetRGBA64(x, y, color.RGBA64{uint16(c.R) * 257, uint16(c.G) * 257, uint16(c.B) * 257, 0xffff})
			nrgba.SetNRGBA(x, y, color.NRGBA{c.R, c.G, c.B, 255})
		}
	}
	// An image whose bounds do not start at the origin.
	offset := image.NewRGBA(image.Rect(10, 20, 10+w, 20+h))
	copy(offset.Pix, rgba.Pix)

	for _, tc := range []struct {
		name string
		img  image.Image
	}{
		{"RGBA", rgba}, {"Gray", gray}, {"Paletted", pal}, {"Gray16", gray16},
		{"RGBA64", rgba64}, {"NRGBA", nrgba}, {"offset bounds", offset},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range [][2]int{{0, 0}, {h, w}} {
				im, err := FromImage("x", tc.img, size[0], size[1])
				if err != nil {
					t.Fatal(err)
				}
				if im.H != h || im.W != w || len(im.Pix) != h*w*3 || im.D() != h*w*3 {
					t.Fatalf("got %d×%d with %d values, want %d×%d", im.H, im.W, len(im.Pix), h, w)
				}
				want := levelsOf(tc.img)
				equalLevels(t, im.Levels(), want)
				equalLevels(t, levelsOf(im.RGBA()), want)
				// Pattern → image → pattern is exact, too.
				back, err := FromImage("y", im.RGBA(), 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				for i := range im.Pix {
					if back.Pix[i] != im.Pix[i] {
						t.Fatalf("pattern value %d: %v after the round trip, was %v", i, back.Pix[i], im.Pix[i])
					}
				}
			}
		})
	}
}

// TestScaling checks that values lie in [0, 1/√D] with 0 and 255 at the
// ends, and v/255/√D in between.
func TestScaling(t *testing.T) {
	const h, w = 4, 6
	img := randomRGB(2, h, w)
	img.Pix[0], img.Pix[1], img.Pix[2] = 0, 255, 128
	im, err := FromImage("x", img, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := float64(h * w * 3)
	top := 1 / math.Sqrt(d)
	for i, v := range im.Pix {
		if !(v >= 0 && v <= top) {
			t.Fatalf("value %d is %v, outside [0, 1/√D = %v]", i, v, top)
		}
	}
	if im.Pix[0] != 0 || im.Pix[1] != top {
		t.Errorf("levels 0 and 255 give %v and %v, want 0 and %v", im.Pix[0], im.Pix[1], top)
	}
	if want := 128.0 / 255 / math.Sqrt(d); math.Abs(im.Pix[2]-want) > 1e-15 {
		t.Errorf("level 128 gives %v, want 128/255/√D = %v", im.Pix[2], want)
	}
}

// TestOrder checks the H×W×C order: channel k of the pixel at row r,
// column c is at index (r·W + c)·3 + k.
func TestOrder(t *testing.T) {
	const h, w = 5, 7
	for _, p := range [][2]int{{0, 0}, {2, 4}, {4, 6}, {0, 6}, {4, 0}} {
		r, c := p[0], p[1]
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := 3; i < len(img.Pix); i += 4 {
			img.Pix[i] = 255
		}
		img.SetRGBA(c, r, color.RGBA{10, 20, 30, 255}) // x = column, y = row
		im, err := FromImage("x", img, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		lv := im.Levels()
		for i, v := range lv {
			want := uint8(0)
			if i/3 == r*w+c {
				want = []uint8{10, 20, 30}[i%3]
			}
			if v != want {
				t.Fatalf("pixel (row %d, col %d): index %d holds %d, want %d", r, c, i, v, want)
			}
		}
		base := (r*w + c) * 3
		s := 1 / math.Sqrt(float64(h*w*3))
		if im.Pix[base] != 10.0/255*s || im.Pix[base+2] != 30.0/255*s {
			t.Errorf("pixel (row %d, col %d): values %v, %v", r, c, im.Pix[base], im.Pix[base+2])
		}
	}
}

// TestResizeCrop scales 100×60 and 60×100 images with a red centre
// marker and blue bars along the long sides' ends to 32×32: the marker
// must stay in the centre and the bars must be cropped away.
func TestResizeCrop(t *testing.T) {
	for _, tc := range []struct{ w, h int }{{100, 60}, {60, 100}, {64, 64}, {17, 23}} {
		img := image.NewRGBA(image.Rect(0, 0, tc.w, tc.h))
		for y := range tc.h {
			for x := range tc.w {
				c := color.RGBA{255, 255, 255, 255}
				// Bars at the ends of the longer side, half as wide as
				// what the cover fit crops there.
				bar := (max(tc.w, tc.h) - min(tc.w, tc.h)) / 4
				if (tc.w > tc.h && (x < bar || x >= tc.w-bar)) || (tc.h > tc.w && (y < bar || y >= tc.h-bar)) {
					c = color.RGBA{0, 0, 255, 255}
				}
				// A centred red square of side min(w, h)/4.
				s := float64(min(tc.w, tc.h)) / 8
				if math.Abs(float64(x)+0.5-float64(tc.w)/2) < s && math.Abs(float64(y)+0.5-float64(tc.h)/2) < s {
					c = color.RGBA{255, 0, 0, 255}
				}
				img.SetRGBA(x, y, c)
			}
		}
		im, err := FromImage("x", img, 32, 32)
		if err != nil {
			t.Fatal(err)
		}
		if im.H != 32 || im.W != 32 {
			t.Fatalf("%d×%d: got %d×%d", tc.w, tc.h, im.W, im.H)
		}
		out := im.RGBA()
		var sx, sy, n float64
		for y := range 32 {
			for x := range 32 {
				c := out.RGBAAt(x, y)
				if c.B > 128 && c.R < 128 {
					t.Fatalf("%d×%d: a blue bar survived the crop at (%d, %d): %v", tc.w, tc.h, x, y, c)
				}
				if c.R > 200 && c.G < 100 && c.B < 100 {
					sx, sy, n = sx+float64(x)+0.5, sy+float64(y)+0.5, n+1
				}
			}
		}
		if n < 36 { // the marker is 8×8 at 32×32
			t.Fatalf("%d×%d: only %v red pixels", tc.w, tc.h, n)
		}
		if cx, cy := sx/n, sy/n; math.Abs(cx-16) > 1 || math.Abs(cy-16) > 1 {
			t.Errorf("%d×%d: the marker's centre is at (%.2f, %.2f), want (16, 16)", tc.w, tc.h, cx, cy)
		}
		if c := out.RGBAAt(16, 16); c.R < 250 || c.G > 5 || c.B > 5 {
			t.Errorf("%d×%d: centre pixel %v, want red", tc.w, tc.h, c)
		}
	}
}

func TestCoverSize(t *testing.T) {
	for _, tc := range []struct{ h0, w0, h, w, sh, sw int }{
		{60, 100, 32, 32, 32, 53},
		{100, 60, 32, 32, 53, 32},
		{512, 512, 64, 64, 64, 64},
		{600, 512, 64, 64, 75, 64},
		{10, 10, 64, 32, 64, 64}, // upscaling
		{64, 64, 32, 48, 48, 48},
	} {
		sh, sw := coverSize(tc.h0, tc.w0, tc.h, tc.w)
		if sh != tc.sh || sw != tc.sw {
			t.Errorf("coverSize(%d×%d → %d×%d) = %d×%d, want %d×%d", tc.h0, tc.w0, tc.h, tc.w, sh, sw, tc.sh, tc.sw)
		}
	}
}

// TestAlpha checks that transparency is composited on white.
func TestAlpha(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 3, 1))
	img.SetNRGBA(0, 0, color.NRGBA{0, 0, 0, 0})       // transparent: white
	img.SetNRGBA(1, 0, color.NRGBA{0, 0, 0, 128})     // half black: gray 127
	img.SetNRGBA(2, 0, color.NRGBA{200, 100, 0, 255}) // opaque: as is
	im, err := FromImage("x", img, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := im.Levels()
	want := []uint8{255, 255, 255, 127, 127, 127, 200, 100, 0}
	for i := range want {
		if d := int(got[i]) - int(want[i]); d < -1 || d > 1 {
			t.Fatalf("levels %v, want %v (±1)", got, want)
		}
	}
}

func TestRGBAClips(t *testing.T) {
	im := &Image{H: 1, W: 2, Pix: []float64{-0.1, 2, math.NaN(), 0, 0, 0}}
	f := 1 / (255 * math.Sqrt(6))
	im.Pix[3], im.Pix[4], im.Pix[5] = 0.4*f, 0.6*f, 254.5*f
	got := im.Levels()
	want := []uint8{0, 255, 0, 0, 1, 255}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("levels %v, want %v", got, want)
		}
	}
	if c := im.RGBA().RGBAAt(1, 0); c != (color.RGBA{0, 1, 255, 255}) {
		t.Errorf("RGBA pixel (1, 0) = %v", c)
	}
}

func TestFromPatternAndErrors(t *testing.T) {
	pix := make([]float64, 2*3*3)
	im, err := FromPattern("p", 2, 3, pix)
	if err != nil || im.H != 2 || im.W != 3 || im.D() != 18 {
		t.Fatalf("FromPattern: %v, %v", im, err)
	}
	pix[0] = 1
	if im.Pix[0] != 0 {
		t.Error("FromPattern does not copy its pattern")
	}
	if _, err := FromPattern("p", 2, 3, pix[:17]); err == nil {
		t.Error("FromPattern accepts a pattern of the wrong length")
	}
	if _, err := FromPattern("p", 0, 3, nil); err == nil {
		t.Error("FromPattern accepts a 0×3 image")
	}
	if _, err := FromImage("x", nil, 4, 4); err == nil {
		t.Error("FromImage accepts a nil image")
	}
	if _, err := FromImage("x", image.NewRGBA(image.Rect(0, 0, 0, 5)), 4, 4); err == nil {
		t.Error("FromImage accepts an empty image")
	}
}

// TestToGray: pure red, green, blue, white and a mid gray become the
// luminances of Go's color.GrayModel (76, 150, 29, 255, 128), scaled by
// 1/255/√(H·W), and a gray image comes back as an equal copy.
func TestToGray(t *testing.T) {
	levels := [][3]float64{{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}, {128, 128, 128}, {0, 0, 0}}
	want := []float64{76, 150, 29, 255, 128, 0}
	const h, w = 2, 3
	im := &Image{Name: "c", H: h, W: w, Pix: make([]float64, h*w*3)}
	sc := 1 / (255 * math.Sqrt(h*w*3))
	for p, l := range levels {
		for k := range 3 {
			im.Pix[3*p+k] = l[k] * sc
		}
	}
	g := im.ToGray()
	if !g.Gray || g.D() != h*w || g.C() != 1 {
		t.Fatalf("gray: %+v", g)
	}
	for p, y := range want {
		if got := g.Pix[p] * 255 * math.Sqrt(h*w); math.Abs(got-y) > 1e-9 {
			t.Errorf("pixel %d: level %v, want %v", p, got, y)
		}
	}
	again := g.ToGray()
	again.Pix[0] = -1
	if g.Pix[0] == -1 {
		t.Error("ToGray of a gray image shares its pixels")
	}
}
