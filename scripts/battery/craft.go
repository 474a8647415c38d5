package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// The crafted input files, built as the package tests build them
// (npy/npy_test.go, imageio/fuzz_test.go, cmd/drdam/reliability_test.go),
// but with the standard library alone.

// npyFile returns an .npy file of the given format version whose header
// dict is dict (padded to a multiple of 64 bytes with a newline, as numpy
// writes it), followed by data.
func npyFile(version byte, dict string, data []byte) []byte {
	pre := 10
	if version >= 2 {
		pre = 12
	}
	n := len(dict) + 1
	if pad := (pre + n) % 64; pad != 0 {
		n += 64 - pad
	}
	h := dict + strings.Repeat(" ", n-1-len(dict)) + "\n"
	b := []byte("\x93NUMPY")
	b = append(b, version, 0)
	if version >= 2 {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(h)))
	} else {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	}
	b = append(b, h...)
	return append(b, data...)
}

// npyF8 returns a C-order float64 .npy file of the given shape and values.
func npyF8(shape []int, vals []float64) []byte {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = fmt.Sprint(d)
	}
	sh := strings.Join(s, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	data := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		data = binary.LittleEndian.AppendUint64(data, math.Float64bits(v))
	}
	return npyFile(1, fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }", sh), data)
}

// craftedModel returns a sealed DrDAM model file (format 1, sincos, zero
// T) whose header declares D, Y and the projection kind (1 gaussian, 2
// orthogonal, 4 structured); edit, if not nil, changes the header before
// it is sealed.
func craftedModel(proj byte, d, y uint64, edit func([]byte)) []byte {
	n := 2 * y
	b := make([]byte, 88+8*n+4)
	copy(b, "DRDAMMDL")
	binary.LittleEndian.PutUint32(b[8:], 1)
	b[12], b[13], b[14], b[15], b[16], b[17] = 2, 1, 2, proj, 1, 1
	binary.LittleEndian.PutUint64(b[24:], d)
	binary.LittleEndian.PutUint64(b[32:], y)
	binary.LittleEndian.PutUint64(b[40:], math.Float64bits(1))
	binary.LittleEndian.PutUint64(b[48:], math.Float64bits(1e-5))
	binary.LittleEndian.PutUint64(b[64:], 1)
	binary.LittleEndian.PutUint64(b[80:], n)
	if edit != nil {
		edit(b)
	}
	seal(b)
	return b
}

// seal rewrites the last 4 bytes of a model file as the CRC-32C of the
// others.
func seal(b []byte) {
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)))
}

// pngHeader returns a PNG signature and IHDR chunk for a w×h image,
// followed by tail.
func pngHeader(w, h uint32, depth, colorType byte, tail []byte) []byte {
	b := []byte("\x89PNG\r\n\x1a\n")
	ihdr := []byte("IHDR")
	ihdr = binary.BigEndian.AppendUint32(ihdr, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, depth, colorType, 0, 0, 0)
	b = binary.BigEndian.AppendUint32(b, 13)
	b = append(b, ihdr...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(ihdr))
	return append(b, tail...)
}

// idat returns a PNG IDAT chunk holding data, with its CRC.
func idat(data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	c := append([]byte("IDAT"), data...)
	b = append(b, c...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(c))
}

// jpegHeader returns SOI and an SOF0 segment declaring a w×h image of
// nComp components, followed by tail.
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

// rgbImage returns a w×h image with varied colours.
func rgbImage(w, h int) *image.RGBA {
	im := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			im.Set(x, y, color.RGBA{uint8(x * 13), uint8(y * 7), uint8(x*y + 40), 255})
		}
	}
	return im
}

func pngBytes(im image.Image) []byte {
	var buf bytes.Buffer
	png.Encode(&buf, im)
	return buf.Bytes()
}

func jpegBytes(im image.Image) []byte {
	var buf bytes.Buffer
	jpeg.Encode(&buf, im, nil)
	return buf.Bytes()
}

func gifBytes(im image.Image) []byte {
	var buf bytes.Buffer
	gif.Encode(&buf, im, nil)
	return buf.Bytes()
}

// bigGrayPNG is a valid w×h gray PNG (it compresses to about 1/1000).
func bigGrayPNG(w, h int) []byte {
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)))
	return buf.Bytes()
}

// idxHeader returns an IDX file: the magic number (type, dimensions) and
// the dimensions given, then data.
func idxFile(typ byte, dims []uint32, data []byte) []byte {
	b := []byte{0, 0, typ, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return append(b, data...)
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// csvRows writes rows of numbers as CSV.
func csvRows(rows [][]float64) []byte {
	var sb strings.Builder
	for _, r := range rows {
		for j, v := range r {
			if j > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "%g", v)
		}
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

// writeFiles writes name → content into dir.
func writeFiles(dir string, files map[string][]byte) error {
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies src to dst.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
