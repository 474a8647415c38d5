package imageio

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"

	xdraw "golang.org/x/image/draw"

	"github.com/drdam/drdam/internal/atomicfile"
)

// Channels is the number of channels C of every Image: red, green, blue.
const Channels = 3

// Image is one RGB image as a pattern: Pix holds D = H·W·3 values in H×W×C
// order (channel k of the pixel at row r, column c is Pix[(r·W+c)·3+k]),
// each an 8-bit level v scaled to v/255/√D, so in [0, 1/√D].
//
// Images made by this package hold whole 8-bit levels; an Image built from
// a recalled pattern (FromPattern) may hold any values, which RGBA rounds
// and clips.
//
// A gray image (Gray set, such as an MNIST digit that LoadIDX reads) has
// one channel: Pix holds D = H·W levels, row-major, scaled the same way.
type Image struct {
	Name string    // where the image came from, e.g. the file name without its extension
	H, W int       // height and width in pixels
	Pix  []float64 // H·W·3 values in H×W×C order (H·W for a gray image)
	Gray bool      // one channel per pixel instead of three
}

// C returns the number of channels of the image: 3, or 1 if it is gray.
func (im *Image) C() int {
	if im.Gray {
		return 1
	}
	return Channels
}

// D returns the dimension of the image's pattern, H·W·C.
func (im *Image) D() int { return im.H * im.W * im.C() }

// unitScale returns 1/√d, the largest value of a pattern of dimension d.
func unitScale(d int) float64 { return 1 / math.Sqrt(float64(d)) }

// FromPattern returns an Image of h×w pixels holding a copy of pix, a pattern
// of length D = h·w·3 in H×W×C order (for instance a row of the result of a
// recall), or of length h·w for a gray image. It is an error if h or w is
// not positive or len(pix) is neither.
func FromPattern(name string, h, w int, pix []float64) (*Image, error) {
	if h <= 0 || w <= 0 {
		return nil, fmt.Errorf("imageio: image size %d×%d is not positive", h, w)
	}
	if len(pix) != h*w*Channels && len(pix) != h*w {
		return nil, fmt.Errorf("imageio: pattern has %d values, want H·W·3 = %d·%d·3 = %d (or H·W = %d for a gray image)", len(pix), h, w, h*w*Channels, h*w)
	}
	return &Image{Name: name, H: h, W: w, Pix: append([]float64(nil), pix...), Gray: len(pix) == h*w}, nil
}

// FromImage converts img into an Image of h×w pixels (h ≤ 0 or w ≤ 0: the
// size of img, without resampling).
//
// The conversion, exactly:
//
//  1. Every pixel is read at 16 bits per channel (img.At(x, y).RGBA(), so any
//     colour model works: gray, paletted, YCbCr, CMYK, 8- or 16-bit) and
//     composited over opaque white: c + (65535 − α) with c premultiplied.
//     Fully transparent pixels become white, opaque pixels are unchanged.
//  2. If img is not already h×w (H0 rows, W0 columns), it is scaled by
//     s = max(h/H0, w/W0), so that it covers h×w and its shorter side (relative
//     to the target) fits, to round(W0·s) × round(H0·s) pixels (at least w × h)
//     with golang.org/x/image/draw.CatmullRom (a Catmull–Rom cubic whose
//     support widens when shrinking, so it also antialiases), at 16 bits.
//  3. The centre h×w is cut out: the crop starts at row ⌊(H'−h)/2⌋ and
//     column ⌊(W'−w)/2⌋ of the scaled H'×W' image.
//  4. Each channel is rounded to 8 bits, round(v16·255/65535) (exact for 8-bit
//     sources), and scaled to v/255/√D.
//
// It is an error if img is nil or has no pixels.
func FromImage(name string, img image.Image, h, w int) (*Image, error) {
	if img == nil {
		return nil, errors.New("imageio: nil image")
	}
	b := img.Bounds()
	if b.Empty() {
		return nil, fmt.Errorf("imageio: image has no pixels (%d×%d)", b.Dy(), b.Dx())
	}
	if h <= 0 || w <= 0 {
		h, w = b.Dy(), b.Dx()
	}
	// Step 1: composite over white at 16 bits.
	flat := image.NewRGBA64(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(flat, flat.Bounds(), image.NewUniform(color.RGBA64{0xffff, 0xffff, 0xffff, 0xffff}), image.Point{}, draw.Src)
	draw.Draw(flat, flat.Bounds(), img, b.Min, draw.Over)

	// Steps 2 and 3: scale to cover, then crop the centre.
	src, x0, y0 := flat, 0, 0
	if b.Dy() != h || b.Dx() != w {
		sh, sw := coverSize(b.Dy(), b.Dx(), h, w)
		scaled := image.NewRGBA64(image.Rect(0, 0, sw, sh))
		xdraw.CatmullRom.Scale(scaled, scaled.Bounds(), flat, flat.Bounds(), xdraw.Src, nil)
		src, y0, x0 = scaled, (sh-h)/2, (sw-w)/2
	}

	// Step 4: 8-bit levels, scaled.
	im := &Image{Name: name, H: h, W: w, Pix: make([]float64, h*w*Channels)}
	s := unitScale(im.D())
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			p := src.RGBA64At(x0+c, y0+r)
			i := (r*w + c) * Channels
			im.Pix[i] = float64(to8(p.R)) / 255 * s
			im.Pix[i+1] = float64(to8(p.G)) / 255 * s
			im.Pix[i+2] = float64(to8(p.B)) / 255 * s
		}
	}
	return im, nil
}

// coverSize returns the size H'×W' of an H0×W0 image scaled by
// s = max(h/H0, w/W0), rounded, and never smaller than h×w.
func coverSize(h0, w0, h, w int) (sh, sw int) {
	s := max(float64(h)/float64(h0), float64(w)/float64(w0))
	sh = max(h, int(math.Round(float64(h0)*s)))
	sw = max(w, int(math.Round(float64(w0)*s)))
	return sh, sw
}

// to8 rounds a 16-bit channel value to 8 bits: round(v·255/65535).
func to8(v uint16) uint8 {
	return uint8((uint32(v)*255 + 32767) / 65535)
}

// level returns the 8-bit level of a pattern value x, given f = 255·√D:
// round(x·f), clipped to [0, 255]; NaN gives 0.
func level(x, f float64) uint8 {
	v := math.Round(x * f)
	switch {
	case v >= 255:
		return 255
	case v > 0:
		return uint8(v)
	default: // v ≤ 0 or NaN
		return 0
	}
}

// RGBA returns the image as opaque pixels: each value x becomes the 8-bit
// level round(x·255·√D), clipped to [0, 255] (NaN gives 0). The result has
// bounds (0, 0)–(W, H).
func (im *Image) RGBA() *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, im.W, im.H))
	f := 255 * math.Sqrt(float64(im.D()))
	c := im.C()
	n := min(im.H*im.W, len(im.Pix)/c)
	for p := 0; p < n; p++ {
		for k := range Channels {
			out.Pix[4*p+k] = level(im.Pix[c*p+k%c], f) // a gray level thrice
		}
		out.Pix[4*p+3] = 255
	}
	// A short Pix (a malformed Image) leaves the rest transparent black.
	return out
}

// Levels returns the image's D = H·W·C values as 8-bit levels in H×W×C
// order, rounded and clipped as RGBA does.
func (im *Image) Levels() []uint8 {
	f := 255 * math.Sqrt(float64(im.D()))
	out := make([]uint8, len(im.Pix))
	for i, x := range im.Pix {
		out[i] = level(x, f)
	}
	return out
}

// ToGray returns the image in gray: each pixel's luminance, as Go's
// color.GrayModel computes it from the 8-bit levels (ITU-R BT.601:
// 0.299 R + 0.587 G + 0.114 B, rounded), scaled to v/255/√D with D = H·W.
// A gray image is returned as a copy.
func (im *Image) ToGray() *Image {
	g := &Image{Name: im.Name, H: im.H, W: im.W, Gray: true, Pix: make([]float64, im.H*im.W)}
	if im.Gray {
		copy(g.Pix, im.Pix)
		return g
	}
	lv := im.Levels()
	s := 1 / (255 * math.Sqrt(float64(im.H*im.W)))
	for p := range g.Pix {
		c := color.RGBA{R: lv[3*p], G: lv[3*p+1], B: lv[3*p+2], A: 255}
		g.Pix[p] = float64(color.GrayModel.Convert(c).(color.Gray).Y) * s
	}
	return g
}

// SavePNG writes the image (as RGBA returns it) to path as an 8-bit RGB PNG,
// atomically: through a temporary file in the same folder, renamed over
// path. Errors name the path.
func (im *Image) SavePNG(path string) error {
	if im.H <= 0 || im.W <= 0 || len(im.Pix) != im.D() {
		return fmt.Errorf("write %s: malformed image %q: %d×%d with %d values", path, im.Name, im.H, im.W, len(im.Pix))
	}
	return writePNG(path, im.RGBA())
}

// writePNG encodes img to path atomically.
func writePNG(path string, img image.Image) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		return png.Encode(w, img)
	})
}
