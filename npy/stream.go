package npy

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Reader reads the elements of one .npy array a chunk at a time, in C
// (row-major) order, converted to float64, so that an array larger than
// memory is read in memory of the size of a chunk.
//
// A Fortran-order array is read by columns at their offsets, which needs
// an input that is an io.ReaderAt and an io.Seeker (an *os.File), and at
// most two axes longer than 1; a C-order array is read from any reader,
// front to back.
type Reader struct {
	h    Header
	dt   dtype
	r    io.Reader
	n    int   // elements
	done int   // elements returned
	rem  int64 // bytes of the input from the start of the data, or -1
	buf  []byte
	// Fortran order with two axes longer than 1: the data is read at
	// offsets from base in ra; rows×cols is the shape without its axes of
	// length 1.
	ra         io.ReaderAt
	base       int64
	rows, cols int
}

// NewReader reads the header of a .npy file from r and returns a Reader of
// its data. It accepts what Read accepts; a header that claims more data
// than a seekable input holds is an error before anything is read, and a
// truncated input otherwise an error from Read naming where the data
// stops.
func NewReader(r io.Reader) (*Reader, error) {
	rd, err := newReader(r)
	if err != nil {
		return nil, err
	}
	if err := rd.columns(); err != nil {
		return nil, err
	}
	return rd, nil
}

// newReader reads the header from r and returns a Reader of the data in
// file order.
func newReader(r io.Reader) (*Reader, error) {
	remaining := remainingSize(r)
	h, err := readHeader(r, remaining)
	if err != nil {
		return nil, err
	}
	dt, err := parseDescr(h.Descr)
	if err != nil {
		return nil, err
	}
	n, _ := numElements(h.Shape) // readHeader checked that it fits.
	nbytes := int64(n) * int64(dt.size)
	rd := &Reader{h: *h, dt: dt, r: r, n: n, rem: -1}
	if remaining >= 0 {
		rd.rem = remaining - h.DataOffset
		if nbytes > rd.rem {
			return nil, truncatedf("npy: truncated: header says %d elements (%d bytes), found only %d bytes: %s",
				n, nbytes, rd.rem, stopsIn(h, int(rd.rem/int64(dt.size))))
		}
	}
	return rd, nil
}

// columns sets a Fortran-order array with two axes longer than 1 to be
// read by columns, or refuses one that cannot be.
func (rd *Reader) columns() error {
	h, r := &rd.h, rd.r
	if h.FortranOrder {
		var dims []int
		for _, d := range h.Shape {
			if d != 1 {
				dims = append(dims, d)
			}
		}
		if len(dims) > 2 {
			return fmt.Errorf("npy: a Fortran-order array of shape %s is not read in chunks (at most two axes longer than 1 are)", FormatShape(h.Shape))
		}
		if len(dims) == 2 {
			ra, ok := r.(io.ReaderAt)
			s, ok2 := r.(io.Seeker)
			if !ok || !ok2 || rd.rem < 0 {
				return fmt.Errorf("npy: a Fortran-order array of shape %s is read by columns, which needs a file, not a stream", FormatShape(h.Shape))
			}
			base, err := s.Seek(0, io.SeekCurrent)
			if err != nil {
				return fmt.Errorf("npy: %w", err)
			}
			rd.ra, rd.base, rd.rows, rd.cols = ra, base, dims[0], dims[1]
		}
	}
	return nil
}

// Header returns the array's header.
func (r *Reader) Header() Header { return r.h }

// Len returns the number of elements of the array.
func (r *Reader) Len() int { return r.n }

// ElemSize returns the bytes of an element in the file (1 for a bool or a
// uint8, 8 for a float64).
func (r *Reader) ElemSize() int { return r.dt.size }

// Read reads the next min(len(dst), Len() − read so far) elements into
// dst, in C order, and returns how many it read. After the last element
// it returns 0 and io.EOF, once it has checked that no bytes follow the
// data. A truncated input is an error wrapping io.ErrUnexpectedEOF that
// says in which row the data stops.
func (r *Reader) Read(dst []float64) (int, error) {
	k := min(len(dst), r.n-r.done)
	if k == 0 {
		if len(dst) == 0 && r.done < r.n {
			return 0, nil
		}
		if err := r.finish(); err != nil {
			return 0, err
		}
		return 0, io.EOF
	}
	var err error
	if r.ra != nil {
		err = r.readColumns(dst[:k])
	} else {
		err = r.readRaw(dst[:k])
	}
	if err != nil {
		return 0, err
	}
	r.done += k
	return k, nil
}

// finish checks, once, that nothing follows the data.
func (r *Reader) finish() error {
	if r.done > r.n {
		return nil
	}
	r.done = r.n + 1 // checked
	return checkTrailing(r.r, r.rem, int64(r.n)*int64(r.dt.size))
}

// chunkBytes is the size of a Reader's buffer.
const chunkBytes = 1 << 16

// readRaw reads the next len(dst) elements in file order.
func (r *Reader) readRaw(dst []float64) error {
	size := r.dt.size
	if r.buf == nil {
		r.buf = make([]byte, min(r.n*size, chunkBytes/size*size))
	}
	for off := 0; off < len(dst); {
		b := r.buf[:min((len(dst)-off)*size, len(r.buf))]
		m, err := io.ReadFull(r.r, b)
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return r.truncated(int64(r.done+off)*int64(size) + int64(m))
			}
			return fmt.Errorf("npy: reading data: %w", err)
		}
		r.dt.decodeInto(dst[off:off+m/size], b)
		off += m / size
	}
	return nil
}

// readColumns reads the next len(dst) elements, in C order, of a
// Fortran-order rows×cols array: the run of each column's elements in
// the chunk is read at its offset.
func (r *Reader) readColumns(dst []float64) error {
	size := int64(r.dt.size)
	s, e := r.done, r.done+len(dst) // C-order elements [s, e)
	r0, r1 := s/r.cols, (e-1)/r.cols
	if r.buf == nil {
		r.buf = make([]byte, 0, chunkBytes)
	}
	for j := range r.cols {
		lo, hi := r0, r1 // rows of column j inside [s, e)
		if lo*r.cols+j < s {
			lo++
		}
		if hi*r.cols+j >= e {
			hi--
		}
		for lo <= hi {
			cnt := min(hi-lo+1, chunkBytes/int(size))
			b := r.buf[:cnt*int(size)]
			off := r.base + (int64(j)*int64(r.rows)+int64(lo))*size
			if m, err := r.ra.ReadAt(b, off); m < len(b) {
				if err == io.EOF || err == nil {
					return r.truncated((int64(j)*int64(r.rows)+int64(lo))*size + int64(m))
				}
				return fmt.Errorf("npy: reading data: %w", err)
			}
			for i := range cnt {
				dst[(lo+i)*r.cols+j-s] = r.dt.decode(b[i*int(size):])
			}
			lo += cnt
		}
	}
	return nil
}

// truncated is the error of data that stops after got bytes.
func (r *Reader) truncated(got int64) error {
	nbytes := int64(r.n) * int64(r.dt.size)
	return truncatedf("npy: truncated: header says %d elements (%d bytes), found only %d bytes: %s",
		r.n, nbytes, got, stopsIn(&r.h, int(got/int64(r.dt.size))))
}

// decodeInto converts the len(dst) raw items of b to float64, with loops
// of their own for the little-endian floats that most files hold.
func (dt dtype) decodeInto(dst []float64, b []byte) {
	if dt.kind == 'f' && dt.order == binary.ByteOrder(binary.LittleEndian) {
		switch dt.size {
		case 4:
			b = b[:4*len(dst)]
			for i := range dst {
				dst[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
			}
			return
		case 8:
			b = b[:8*len(dst)]
			for i := range dst {
				dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
			}
			return
		}
	}
	for i := range dst {
		dst[i] = dt.decode(b[i*dt.size:])
	}
}
