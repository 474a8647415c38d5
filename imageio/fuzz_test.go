package imageio

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"strconv"
	"strings"
	"testing"

	"github.com/drdam/drdam/internal/fuzzbudget"
)

// pngHeader returns the start of a PNG file (signature and IHDR chunk,
// with a correct CRC) declaring a w×h image of the given bit depth and
// colour type, followed by tail.
func pngHeader(w, h uint32, depth, colorType byte, tail []byte) []byte {
	b := []byte("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 0, 17)
	ihdr = append(ihdr, "IHDR"...)
	ihdr = binary.BigEndian.AppendUint32(ihdr, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, depth, colorType, 0, 0, 0)
	b = binary.BigEndian.AppendUint32(b, 13)
	b = append(b, ihdr...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(ihdr))
	return append(b, tail...)
}

// idat returns a PNG chunk IDAT holding data, with a correct CRC.
func idat(data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	c := append([]byte("IDAT"), data...)
	b = append(b, c...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(c))
}

// jpegHeader returns the start of a baseline JPEG file (SOI and an SOF0
// segment) declaring a w×h image with nComp components (1 or 3, each
// sampled 1×1), followed by tail.
func jpegHeader(w, h uint16, nComp byte, tail []byte) []byte {
	b := []byte{0xff, 0xd8, 0xff, 0xc0}
	b = binary.BigEndian.AppendUint16(b, 8+3*uint16(nComp))
	b = append(b, 8)
	b = binary.BigEndian.AppendUint16(b, h)
	b = binary.BigEndian.AppendUint16(b, w)
	b = append(b, nComp)
	for i := range nComp {
		b = append(b, i+1, 0x11, 0)
	}
	return append(b, tail...)
}

// paddedPixels returns the pixels of a w×h image with both sides rounded
// up to 32, the largest JPEG MCU: the size the JPEG decoder allocates
// for.
func paddedPixels(w, h int) uint64 {
	return uint64((w+31)/32*32) * uint64((h+31)/32*32)
}

// imageBudget bounds what decoding an n-byte image file whose header
// declares px pixels (paddedPixels) and converting it to at most 16×16
// may allocate.
//
// Per declared pixel, 64: the decoded image takes 1 to 8 bytes per pixel
// (8 for a 16-bit RGBA PNG), a progressive JPEG also 4 bytes of
// coefficients per pixel and component (at most 4 components, 16 bytes),
// and FromImage an 8-byte RGBA64 copy; a JPEG's subsampled components
// and a CMYK image's conversion add a few more. Per byte of input, 64:
// the decoders copy no more than a chunk's worth of their input at once,
// and messages quote nothing of it. Fixed, 4 MiB: the buffered readers
// (4 KiB, 64 KiB), the inflate state and window (about 40 KiB), the JPEG
// decoder's tables, and the resize to at most 16×16 (Catmull–Rom keeps a
// row of 16 output columns per source row: within the per-pixel part).
//
// decode refuses a header declaring more pixels than the file can hold
// (minSize) or than maxPixels before the decoders allocate the image; the
// budget of such an input is 64×n + 4 MiB.
func imageBudget(px uint64) fuzzbudget.Budget {
	return fuzzbudget.Budget{PerByte: 64, Fixed: 4<<20 + 64*px}
}

// FuzzDecode checks that decoding an image file and converting it to a
// small size (decodeFile, as Load does for each file) never panics,
// returns an image of the size asked for or an error naming the file, and
// allocates within imageBudget. maxPixels is lowered to 2^20 so that each
// input stays fast; the refusal of larger images is the same code.
func FuzzDecode(f *testing.F) {
	old := maxPixels
	maxPixels = 1 << 20
	f.Cleanup(func() { maxPixels = old })

	rgb := randomRGB(1, 12, 10)
	gray := image.NewGray(image.Rect(0, 0, 9, 7))
	for i := range gray.Pix {
		gray.Pix[i] = byte(i * 37)
	}
	pal := image.NewPaletted(image.Rect(0, 0, 17, 3), color.Palette{color.Black, color.White})
	for i := range pal.Pix {
		pal.Pix[i] = byte(i % 2)
	}
	deep := image.NewNRGBA64(image.Rect(0, 0, 5, 6))
	for i := range deep.Pix {
		deep.Pix[i] = byte(i * 13)
	}
	plte := image.NewPaletted(image.Rect(0, 0, 4, 4), palette.Plan9)
	var gb bytes.Buffer
	if err := gif.Encode(&gb, rgb, nil); err != nil {
		f.Fatal(err)
	}
	var seeds [][]byte
	for _, img := range []image.Image{rgb, gray, pal, deep, plte} {
		seeds = append(seeds, encodePNG(f, img))
	}
	seeds = append(seeds, encodeJPEG(f, rgb), encodeJPEG(f, gray), encodeJPEG(f, solid(40, 33, color.RGBA{200, 10, 10, 255})))
	for _, b := range seeds[:len(seeds):len(seeds)] {
		seeds = append(seeds, b[:len(b)/2], b[:40])
	}
	seeds = append(seeds,
		pngHeader(100000, 100000, 8, 6, nil),                         // above MaxPixels
		pngHeader(5000, 5000, 16, 6, idat([]byte{0x78, 0x9c, 0x01})), // too short for its size
		pngHeader(1000, 1000, 1, 0, idat([]byte{0x78, 0x9c})),        // 1-bit: a small file may be a large image
		pngHeader(0, 10, 8, 2, nil),
		jpegHeader(65535, 65535, 3, []byte{0xff, 0xda, 0x00, 0x08}),
		jpegHeader(1000, 1000, 1, []byte{0xff, 0xda, 0x00, 0x08}),
		jpegHeader(1000, 1000, 3, []byte{0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00}),
		gb.Bytes(),
		[]byte("hello, world"),
		[]byte("\x89PNG\r\n\x1a\n"),
		[]byte{0xff, 0xd8},
		nil,
	)
	for i, b := range seeds {
		f.Add(b, uint8(8+i%9), uint8(8-i%5))
	}
	f.Fuzz(func(t *testing.T, data []byte, h, w uint8) {
		h, w = h%16+1, w%16+1
		var px uint64
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil && cfg.Width > 0 && cfg.Height > 0 {
			px = paddedPixels(cfg.Width, cfg.Height)
			if int64(cfg.Width)*int64(cfg.Height) > maxPixels {
				px = 0 // refused from the header
			} else if need, _, err := minSize(bytes.NewReader(data), sniff(data), cfg); err != nil || int64(len(data)) < need {
				px = 0 // refused as too short
			}
		}
		var im *Image
		var err error
		fuzzbudget.Check(t, "decodeFile", len(data), imageBudget(px), func() {
			im, err = decodeFile("f.png", bytes.NewReader(data), int64(len(data)), int(h), int(w))
		})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "imageio: f.png: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if im.H != int(h) || im.W != int(w) || len(im.Pix) != im.D() || im.Name != "f" {
			t.Fatalf("image %q of %d×%d with %d values, want f of %d×%d", im.Name, im.H, im.W, len(im.Pix), h, w)
		}
	})
}

// sniff returns "jpeg" for data starting as a JPEG file does, and
// "png" otherwise.
func sniff(data []byte) string {
	if bytes.HasPrefix(data, []byte{0xff, 0xd8}) {
		return "jpeg"
	}
	return "png"
}

// occlusionBudget bounds what ParseOcclusion may allocate for an h×w
// image (h, w ≤ 64, so at most 4096 pixels) and a spec of n bytes. Per
// byte, 64: the spec's lower-cased copy, the box's fields (a 16-byte
// string header per field of at least one byte, and an int each) and the
// message quoting it. Fixed, 128 KiB: the mask (3 bytes per pixel,
// 12 KiB) and OccludeRandom's permutation (8 bytes per pixel, 32 KiB),
// rounded up to the allocator's size classes, and twice that for slack.
var occlusionBudget = fuzzbudget.Budget{PerByte: 64, Fixed: 128 << 10}

// FuzzParseOcclusion checks that ParseOcclusion, which turns the command
// line's --occlude into an image mask, never panics on any text and
// returns a mask of h·w·3 values or an error quoting the text.
func FuzzParseOcclusion(f *testing.F) {
	for _, s := range []string{
		"bottom:0.5", "random:0.25", "box:1,2,3,4", "BOTTOM:1", "random:0", "bottom:2", "random:nan",
		"box:0,0,99999999999999999999,1", "box:1,2,3", "box:-1,0,1,1", "box:63,63,1,1", "box:0,0,9223372036854775807,9223372036854775807",
		"", ":", "bottom:", "box:", "random:1e-300", "top:0.5",
	} {
		f.Add(s, uint8(8), uint8(8), uint64(1))
	}
	f.Fuzz(func(t *testing.T, s string, h, w uint8, seed uint64) {
		hh, ww := int(h%64)+1, int(w%64)+1
		var mask []bool
		var err error
		fuzzbudget.Check(t, "ParseOcclusion", len(s), occlusionBudget, func() {
			mask, err = ParseOcclusion(s, hh, ww, seed)
		})
		if err != nil {
			if !strings.HasPrefix(err.Error(), strconv.Quote(s)) {
				t.Fatalf("error %q does not start with the quoted text", err)
			}
			return
		}
		if len(mask) != hh*ww*Channels {
			t.Fatalf("mask of %d values for %d×%d", len(mask), hh, ww)
		}
		for p := 0; p < hh*ww; p++ {
			if mask[3*p] != mask[3*p+1] || mask[3*p] != mask[3*p+2] {
				t.Fatalf("pixel %d: channels %v disagree", p, mask[3*p:3*p+3])
			}
		}
	})
}
