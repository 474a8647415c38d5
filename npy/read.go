package npy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
)

// Array is an n-dimensional array read from a .npy file, converted to
// float64, in C (row-major) order.
type Array struct {
	Shape []int     // e.g. [K, D]; empty for a 0-d scalar
	Data  []float64 // len = product of Shape
	Descr string    // dtype as found in the file, e.g. "<f4"
}

// Read reads one array from r, which must hold exactly one .npy file:
// bytes after the data are an error. (To check that on a reader that is
// not an io.Seeker, Read reads r to EOF.)
//
// Read accepts format versions 1.0, 2.0 and 3.0, the dtypes f2, f4, f8,
// i1, i2, i4, i8, u1, u2, u4, u8 and b1 in either byte order, and C or
// Fortran order. The data is converted to float64 (bools to 0 and 1) and
// returned in C order. Other dtypes are an error naming the dtype.
//
// If r is an io.Seeker, such as an *os.File on a regular file or a
// *bytes.Reader, Read seeks to its end and back to learn the size of the
// input, and rejects a header that claims more data than the input holds
// before allocating anything. Otherwise it reads the data in bounded
// chunks, so that memory grows only as data actually arrives. Either way a
// malformed or truncated input is an error, never a panic.
func Read(r io.Reader) (*Array, error) {
	rd, err := newReader(r)
	if err != nil {
		return nil, err
	}
	n := rd.n
	if n > maxInt/8 {
		return nil, fmt.Errorf("npy: shape %s has %d elements, too many for a []float64 on this platform", FormatShape(rd.h.Shape), n)
	}
	// Allocate the result up front only if the input is known to hold
	// it; otherwise let it grow as the data arrives.
	var data []float64
	if rd.rem >= 0 {
		data = make([]float64, n)
	}
	for rd.done < n {
		if rd.rem < 0 {
			data = slices.Grow(data, min(n-len(data), chunkBytes))
		}
		if _, err := rd.Read(data[rd.done:cap(data)]); err != nil {
			return nil, err
		}
		data = data[:rd.done]
	}
	if _, err := rd.Read(nil); err != io.EOF {
		return nil, err
	}
	if rd.h.FortranOrder && n > 0 {
		data = fortranToC(data, rd.h.Shape)
	}
	return &Array{Shape: rd.h.Shape, Data: data, Descr: rd.h.Descr}, nil
}

// stopsIn says where data that holds only the first complete elements of
// the array of header h stops: "the data stops in row R of S" for an
// array of two or more dimensions in C order (rows along the first axis,
// counted from 1, as ReadMatrix's rows are), and "the data stops at
// element E of N" otherwise (counted from 1, in file order).
func stopsIn(h *Header, complete int) string {
	n, _ := numElements(h.Shape)
	if len(h.Shape) >= 2 && !h.FortranOrder && n > 0 {
		perRow := n / h.Shape[0]
		return fmt.Sprintf("the data stops in row %d of %d", complete/perRow+1, h.Shape[0])
	}
	return fmt.Sprintf("the data stops at element %d of %d", complete+1, n)
}

// remainingSize returns the number of bytes left in r if r can tell it
// (an io.Seeker, such as an *os.File on a regular file or a
// *bytes.Reader), or -1.
func remainingSize(r io.Reader) int64 {
	s, ok := r.(io.Seeker)
	if !ok {
		return -1
	}
	cur, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return -1
	}
	end, err := s.Seek(0, io.SeekEnd)
	if err != nil {
		return -1
	}
	if _, err := s.Seek(cur, io.SeekStart); err != nil {
		// The position is lost; nothing sensible can be read.
		return -1
	}
	if end < cur {
		return 0
	}
	return end - cur
}

// checkTrailing reports an error if r holds bytes after the data, which
// ends at offset end.
func checkTrailing(r io.Reader, remaining, end int64) error {
	if remaining >= 0 {
		if extra := remaining - end; extra > 0 {
			return trailingError(extra, end)
		}
		return nil
	}
	extra, err := io.Copy(io.Discard, r)
	if err != nil {
		return fmt.Errorf("npy: reading after the data: %w", err)
	}
	if extra > 0 {
		return trailingError(extra, end)
	}
	return nil
}

func trailingError(extra, end int64) error {
	return fmt.Errorf("npy: %d bytes after the data: the header and the data it describes take %d bytes, the input has %d",
		extra, end, end+extra)
}

// fortranToC reorders data, stored in Fortran (column-major) order with the
// given shape, into C (row-major) order.
func fortranToC(data []float64, shape []int) []float64 {
	// Axes of length 1 do not change the layout. Dropping them leaves at
	// most log2(len(data)) axes, which keeps the index arithmetic below
	// cheap even for a hostile header with thousands of axes.
	var dims []int
	for _, d := range shape {
		if d != 1 {
			dims = append(dims, d)
		}
	}
	if len(dims) <= 1 {
		return data
	}
	shape = dims
	nd := len(shape)
	// fstride[k] is the distance in data between neighbours along axis k.
	fstride := make([]int, nd)
	s := 1
	for k := range nd {
		fstride[k] = s
		s *= shape[k]
	}
	out := make([]float64, len(data))
	idx := make([]int, nd)
	off := 0
	for i := range out {
		out[i] = data[off]
		// Advance the C-order multi-index, last axis fastest.
		for k := nd - 1; k >= 0; k-- {
			idx[k]++
			off += fstride[k]
			if idx[k] < shape[k] {
				break
			}
			off -= idx[k] * fstride[k]
			idx[k] = 0
		}
	}
	return out
}

// ReadFile reads one array from the .npy file at path. Its errors start
// with "read PATH: ".
func ReadFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	a, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return a, nil
}
