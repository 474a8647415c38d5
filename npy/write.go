package npy

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/drdam/drdam/internal/atomicfile"
)

// align is the alignment of the data that NumPy (1.14 and later) uses.
const align = 64

// growthAxisMaxDigits is NumPy's GROWTH_AXIS_MAX_DIGITS: NumPy 1.24 pads
// the header so that the first dimension can grow to 21 digits in place.
const growthAxisMaxDigits = 21

// Write writes data, an array of the given shape in C (row-major) order, to
// w as a .npy file of dtype "<f8" (little-endian float64). The file is
// version 1.0, or 2.0 if the header needs more than 65535 bytes, and is
// byte for byte what NumPy 1.24's numpy.save writes for the same array.
// An empty shape writes a 0-d scalar and needs exactly one value.
func Write(w io.Writer, shape []int, data []float64) error {
	return write(w, "<f8", shape, len(data), 8, func(b []byte, i int) {
		binary.LittleEndian.PutUint64(b, math.Float64bits(data[i]))
	})
}

// WriteFloat32 is like Write but writes dtype "<f4" (little-endian
// float32), rounding each value to the nearest float32.
func WriteFloat32(w io.Writer, shape []int, data []float64) error {
	return write(w, "<f4", shape, len(data), 4, func(b []byte, i int) {
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(data[i])))
	})
}

// WriteBool is like Write but writes dtype "|b1" (bool, one byte per
// value).
func WriteBool(w io.Writer, shape []int, data []bool) error {
	return write(w, "|b1", shape, len(data), 1, func(b []byte, i int) {
		b[0] = 0
		if data[i] {
			b[0] = 1
		}
	})
}

// EncodeHeader returns the preamble and header of a .npy file of dtype
// descr (such as "<f8", "<f4" or "|b1") and the given shape, as Write
// writes them (padded so that the data starts at a multiple of 64 bytes):
// a writer of an array too large for memory writes it, then the data in C
// order, a chunk at a time.
func EncodeHeader(descr string, shape []int) []byte { return header(descr, shape) }

// WriteFile writes data as a "<f8" .npy file at path, as Write does. The
// write is atomic: the array goes to a temporary file in the same directory,
// which is synced and then renamed to path, so path holds either its old
// contents or the complete new file, never a partial one. A new file gets
// permissions 0644; an existing file keeps its permissions.
func WriteFile(path string, shape []int, data []float64) error {
	if err := checkShape(shape, len(data)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return Write(w, shape, data) })
}

// WriteFileFloat32 is like WriteFile but writes dtype "<f4", as
// WriteFloat32 does.
func WriteFileFloat32(path string, shape []int, data []float64) error {
	if err := checkShape(shape, len(data)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return WriteFloat32(w, shape, data) })
}

// checkShape checks that shape has no negative dimension and that its
// product is n.
func checkShape(shape []int, n int) error {
	for i, d := range shape {
		if d < 0 {
			return fmt.Errorf("npy: negative dimension %d at axis %d of shape %v", d, i, shape)
		}
	}
	want, ok := numElements(shape)
	if !ok {
		return fmt.Errorf("npy: shape %v has too many elements: the product overflows an int", shape)
	}
	if want != n {
		return fmt.Errorf("npy: shape %v needs %d values, found %d", shape, want, n)
	}
	return nil
}

// header returns the preamble and header NumPy 1.24 writes for an array
// of the given dtype and shape in C order.
func header(descr string, shape []int) []byte {
	sh := FormatShape(shape)
	dict := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + sh + ", }"
	if len(shape) > 0 {
		first := len(fmt.Sprint(shape[0]))
		if first < growthAxisMaxDigits {
			dict += strings.Repeat(" ", growthAxisMaxDigits-first)
		}
	}
	for _, v := range []struct {
		major   byte
		lenSize int
		maxLen  int
	}{{1, 2, math.MaxUint16}, {2, 4, math.MaxUint32}} {
		pre := len(magic) + 2 + v.lenSize
		hlen := len(dict) + 1 // the newline
		pad := align - (pre+hlen)%align
		hlen += pad
		if hlen > v.maxLen {
			continue
		}
		b := make([]byte, 0, pre+hlen)
		b = append(b, magic...)
		b = append(b, v.major, 0)
		if v.lenSize == 2 {
			b = binary.LittleEndian.AppendUint16(b, uint16(hlen))
		} else {
			b = binary.LittleEndian.AppendUint32(b, uint32(hlen))
		}
		b = append(b, dict...)
		b = append(b, strings.Repeat(" ", pad)...)
		b = append(b, '\n')
		return b
	}
	return nil
}

// write writes the header and then n items of size bytes each, filled in
// by put.
func write(w io.Writer, descr string, shape []int, n, size int, put func(b []byte, i int)) error {
	if err := checkShape(shape, n); err != nil {
		return err
	}
	h := header(descr, shape)
	if h == nil {
		return fmt.Errorf("npy: shape %v needs a header longer than 4 GiB", shape)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.Write(h); err != nil {
		return fmt.Errorf("npy: writing header: %w", err)
	}
	var item [8]byte
	for i := range n {
		put(item[:size], i)
		if _, err := bw.Write(item[:size]); err != nil {
			return fmt.Errorf("npy: writing data: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("npy: writing data: %w", err)
	}
	return nil
}
