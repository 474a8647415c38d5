package dataio

import (
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// The IDX format (LeCun's, that of MNIST's files): a magic number of four
// bytes — two zero bytes, the type of the values and the number of
// dimensions —, the size of each dimension as a big-endian uint32, then
// the values, big-endian, row-major.

// idxTypes are the IDX value types: the byte of the magic number, its name
// and the size of a value in bytes.
var idxTypes = map[byte]struct {
	name string
	size int
}{
	0x08: {"unsigned byte", 1},
	0x09: {"signed byte", 1},
	0x0B: {"short", 2},
	0x0C: {"int", 4},
	0x0D: {"float", 4},
	0x0E: {"double", 8},
}

// isIDX reports whether path names an IDX file: a name ending in "ubyte"
// (MNIST's train-images-idx3-ubyte, train-images.idx3-ubyte) or ".idx",
// before an optional ".gz".
func isIDX(path string) bool {
	b := strings.TrimSuffix(strings.ToLower(filepath.Base(path)), ".gz")
	return strings.HasSuffix(b, "ubyte") || strings.HasSuffix(b, ".idx")
}

// idxHeader is what an IDX file declares.
type idxHeader struct {
	typ  byte
	dims []int
	n    int64 // values: the product of dims
	// backed: the input is known to hold every value declared (a plain
	// regular file or an in-memory input, by its size; a compressed one
	// read through, see idxOpen), so that memory may be allocated for
	// them all. Otherwise (a stream) its values are counted as they
	// arrive.
	backed bool
	// first: the first row is known to be there (backed, or read
	// through by idxOpen).
	first bool
}

// shape returns the dimensions as "60000×28×28".
func (h idxHeader) shape() string {
	s := make([]string, len(h.dims))
	for i, d := range h.dims {
		s[i] = fmt.Sprint(d)
	}
	return strings.Join(s, "×")
}

// size returns the bytes of a value.
func (h idxHeader) size() int { return idxTypes[h.typ].size }

// declares says what the header declares: "2×3 unsigned byte values (6
// bytes)".
func (h idxHeader) declares() string {
	return fmt.Sprintf("%s %s values (%d bytes)", h.shape(), idxTypes[h.typ].name, h.n*int64(h.size()))
}

// deflateRatio is the most that deflate expands: a 258-byte match coded
// in 2 bits (a 1-bit length code and a 1-bit distance code) gives 1032
// bytes per byte of compressed data, and block headers, the first literal
// and gzip's 18 bytes of header and trailer only lower it. A gzip file of
// c bytes therefore holds at most 1032·c bytes (package imageio bounds a
// PNG's pixel rows the same way).
const deflateRatio = 1032

// idxStream reads the header of the IDX file called path from r, first
// wrapping r in a gzip reader if the name ends in ".gz", and returns the
// reader of its values. If the size of r is known (a regular file, or an
// in-memory reader), the values that the header declares must fit in it
// (for a compressed file, at deflate's largest expansion): a header that
// declares more is an error before anything is allocated for them.
func idxStream(r io.Reader, path string) (idxHeader, io.Reader, error) {
	size, known := sizeLeft(r)
	gz := strings.HasSuffix(strings.ToLower(path), ".gz")
	if gz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return idxHeader{}, nil, fmt.Errorf("%s: not a gzip file: %w", path, err)
		}
		r = zr
	}
	h, err := readIDXHeader(r, path)
	if err != nil || !known {
		return h, r, err
	}
	hdr := 4 + 4*int64(len(h.dims))
	data := h.n * int64(h.size()) // < 2^63: see readIDXHeader
	if gz {
		if data > deflateRatio*size-hdr {
			return idxHeader{}, nil, fmt.Errorf("%s: truncated: the IDX header declares %s, more than a gzip file of %d bytes can hold (deflate expands at most %d times, %d bytes)",
				path, h.declares(), size, deflateRatio, deflateRatio*size)
		}
		return h, r, nil
	}
	if found := size - hdr; data > found {
		values := found / int64(h.size())
		return idxHeader{}, nil, fmt.Errorf("%s: truncated: the IDX header declares %s, found only %d bytes after its %d-byte header: the data ends after %d values (row %d)",
			path, h.declares(), found, hdr, values, values/h.rowLen()+1)
	}
	h.backed, h.first = true, true
	return h, r, nil
}

// idxOpen reads the header of the IDX file called path from r, as
// idxStream does, and, for a compressed file in a reader that can seek
// (a file, or an in-memory input), makes sure that the first check(h)
// bytes of values are there before anything is sized by them: it reads
// them through, discarding them in a fixed buffer, then seeks back and
// reads the header again (decompressing those bytes twice). Deflate's
// expansion is then checked as the bytes arrive, with no memory that
// grows with them. A stream that cannot seek is returned as it is: its
// values are counted as they arrive (idxMatrix), or its first row read
// ahead (newIDXStream).
func idxOpen(r io.Reader, path string, check func(idxHeader) int64) (idxHeader, io.Reader, error) {
	s, seekable := r.(io.Seeker)
	var start int64
	if seekable {
		var err error
		if start, err = s.Seek(0, io.SeekCurrent); err != nil {
			seekable = false
		}
	}
	h, vr, err := idxStream(r, path)
	if err != nil || h.backed || !seekable {
		return h, vr, err
	}
	want := check(h)
	if n, err := io.CopyN(io.Discard, vr, want); n < want {
		return idxHeader{}, nil, h.truncated(path, n, err)
	}
	if _, err := s.Seek(start, io.SeekStart); err != nil {
		return idxHeader{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	h, vr, err = idxStream(r, path)
	if err != nil {
		return h, vr, err // the file changed under us
	}
	h.backed, h.first = want == h.n*int64(h.size()), true
	return h, vr, nil
}

// truncated returns the error of values that end after n bytes, or the
// error err that stopped them if it is not the end of the input (a
// corrupt gzip stream, say).
func (h idxHeader) truncated(path string, n int64, err error) error {
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return fmt.Errorf("%s: %w", path, err)
	}
	got := n / int64(h.size())
	return fmt.Errorf("%s: truncated: the IDX header declares %s, the data ends after %d values (row %d)",
		path, h.declares(), got, got/h.rowLen()+1)
}

// rowLen returns the values of a row (see idxRows).
func (h idxHeader) rowLen() int64 {
	if len(h.dims) == 1 {
		return h.n
	}
	return h.n / int64(h.dims[0])
}

// sizeLeft returns the bytes left in r, if r can tell: an *os.File on a
// regular file (from its offset), an in-memory reader (*bytes.Reader,
// *strings.Reader, *bytes.Buffer), or a counter of one of those.
func sizeLeft(r io.Reader) (int64, bool) {
	switch r := r.(type) {
	case *counter:
		return sizeLeft(r.r)
	case *countFile:
		return sizeLeft(r.r)
	case *os.File:
		st, err := r.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0, false
		}
		off, err := r.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, false
		}
		return max(0, st.Size()-off), true
	case interface{ Len() int }:
		return int64(r.Len()), true
	}
	return 0, false
}

// readIDXHeader reads the magic number and the dimensions from r.
func readIDXHeader(r io.Reader, path string) (idxHeader, error) {
	var m [4]byte
	if n, err := io.ReadFull(r, m[:]); err != nil {
		return idxHeader{}, fmt.Errorf("%s: not an IDX file: %d bytes, want a magic number of 4", path, n)
	}
	if m[0] != 0 || m[1] != 0 {
		return idxHeader{}, fmt.Errorf("%s: not an IDX file: the magic number starts with 0x%02x%02x, want 0x0000", path, m[0], m[1])
	}
	_, ok := idxTypes[m[2]]
	if !ok {
		return idxHeader{}, fmt.Errorf("%s: unknown IDX value type 0x%02x (want 0x08 unsigned byte, 0x09 signed byte, 0x0B short, 0x0C int, 0x0D float or 0x0E double)", path, m[2])
	}
	if m[3] == 0 {
		return idxHeader{}, fmt.Errorf("%s: the IDX header declares 0 dimensions, want at least 1", path)
	}
	h := idxHeader{typ: m[2], dims: make([]int, m[3]), n: 1}
	buf := make([]byte, 4*int(m[3]))
	if n, err := io.ReadFull(r, buf); err != nil {
		return idxHeader{}, fmt.Errorf("%s: truncated IDX header: %d dimensions declared, %d bytes of sizes found, want %d", path, m[3], n, len(buf))
	}
	for i := range h.dims {
		h.dims[i] = int(binary.BigEndian.Uint32(buf[4*i:]))
	}
	// The values of a row (the dimensions after the first) are at most
	// maxValues, and the first dimension is below 2^32, so that h.n <
	// 2^60 and its bytes < 2^63.
	for i, d := range h.dims {
		if d == 0 {
			return idxHeader{}, fmt.Errorf("%s: no data: the IDX header declares shape %s", path, h.shape())
		}
		if i > 0 && h.n/int64(h.dims[0]) > int64(maxValues)/int64(d) {
			return idxHeader{}, fmt.Errorf("%s: the IDX header declares shape %s: rows of more than the %d values this reader holds", path, h.shape(), maxValues)
		}
		h.n *= int64(d)
	}
	return h, nil
}

// idxChunk is the number of values that the IDX reader decodes at a time.
const idxChunk = 1 << 16

// idxMatrix reads the values of an IDX file after its header into a
// matrix, as idxRows reads them. If the input is known to hold them all
// (h.backed: see idxOpen), the matrix is allocated at once; otherwise (a
// stream) it grows as the values arrive, doubling, so that it never takes
// more than twice what arrived and a chunk. Up to MaxValues.
func idxMatrix(r io.Reader, path string, h idxHeader) (*Matrix, error) {
	if h.n > int64(maxValues) {
		return nil, fmt.Errorf("%s: the IDX header declares shape %s, more than the %d values this reader holds in memory (read it in chunks with OpenRows)", path, h.shape(), maxValues)
	}
	src := newIDXRows(r, path, h)
	n := int(h.n)
	var data []float64
	if h.backed {
		data = make([]float64, 0, n)
	}
	for len(data) < n {
		if len(data) == cap(data) {
			grown := make([]float64, len(data), min(n, max(2*cap(data), idxChunk)))
			copy(grown, data)
			data = grown
		}
		k, err := src.values(data[len(data):min(cap(data), len(data)+idxChunk)])
		if err != nil {
			return nil, err
		}
		data = data[:len(data)+k]
	}
	if err := src.finish(); err != nil {
		return nil, err
	}
	return &Matrix{Rows: src.rows, Cols: src.cols, Data: data}, nil
}

// idxRows reads the rows of an IDX file after its header: the first
// dimension gives the rows and the others are flattened, row-major, into
// the columns (an image of MNIST, 28×28, is a row of 784 values); a 1-D
// file of n values is one row (1×n), as a 1-D .npy array. Unsigned bytes
// are 8-bit gray levels and are read as v/255/√D in [0, 1/√D], D the
// values of a row, as package imageio reads pixels (a pattern's norm is
// then at most 1, the scale the paper's β assume); the other types are
// read as they are.
type idxRows struct {
	r          io.Reader
	path       string
	h          idxHeader
	rows, cols int
	done       int64 // values read
	scale      float64
	buf        []byte // raw values, up to idxChunk of them
}

func newIDXRows(r io.Reader, path string, h idxHeader) *idxRows {
	s := &idxRows{r: r, path: path, h: h, rows: h.dims[0], cols: int(h.rowLen()), scale: 1}
	if len(h.dims) == 1 {
		s.rows = 1
	}
	if h.typ == 0x08 {
		s.scale = 1 / (255 * math.Sqrt(float64(s.cols)))
	}
	return s
}

// read reads up to len(dst)/cols rows into dst, or returns io.EOF after
// the last, once it has checked that no bytes follow the declared values.
func (s *idxRows) read(dst []float64) (int, error) {
	k := min(int64(len(dst)/s.cols), s.h.n/int64(s.cols)-s.done/int64(s.cols))
	if k == 0 {
		if err := s.finish(); err != nil {
			return 0, err
		}
		return 0, io.EOF
	}
	dst = dst[:k*int64(s.cols)]
	for off := 0; off < len(dst); {
		m, err := s.values(dst[off:])
		if err != nil {
			return 0, err
		}
		off += m
	}
	return int(k), nil
}

// values reads the next min(len(dst), idxChunk, values left) values into
// dst, and returns how many.
func (s *idxRows) values(dst []float64) (int, error) {
	t := idxTypes[s.h.typ]
	m := int(min(int64(len(dst)), idxChunk, s.h.n-s.done))
	if s.buf == nil {
		s.buf = make([]byte, min(idxChunk, s.h.n)*int64(t.size))
	}
	if n, err := io.ReadFull(s.r, s.buf[:m*t.size]); err != nil {
		got := s.done + int64(n/t.size)
		return 0, fmt.Errorf("%s: truncated: the IDX header declares %s, the data ends after %d values (row %d)",
			s.path, s.h.declares(), got, got/int64(s.cols)+1)
	}
	for i := range m {
		dst[i] = s.scale * idxValue(s.h.typ, s.buf[i*t.size:])
	}
	s.done += int64(m)
	return m, nil
}

// finish returns an error if bytes follow the declared values.
func (s *idxRows) finish() error {
	var extra [1]byte
	n, err := io.ReadFull(s.r, extra[:])
	if n > 0 {
		return fmt.Errorf("%s: more bytes than the IDX header declares (%s)", s.path, s.h.declares())
	}
	if err != io.EOF {
		return fmt.Errorf("%s: after the data: %w", s.path, err) // a gzip checksum, say
	}
	return nil
}

// idxValue decodes the big-endian value of type typ at b.
func idxValue(typ byte, b []byte) float64 {
	switch typ {
	case 0x08:
		return float64(b[0])
	case 0x09:
		return float64(int8(b[0]))
	case 0x0B:
		return float64(int16(binary.BigEndian.Uint16(b)))
	case 0x0C:
		return float64(int32(binary.BigEndian.Uint32(b)))
	case 0x0D:
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
	default:
		return math.Float64frombits(binary.BigEndian.Uint64(b))
	}
}

// IDXShape returns the dimensions that the header of the IDX file at path
// declares (plain or compressed, see ReadMatrix) and the name of its value
// type: "unsigned byte", "signed byte", "short", "int", "float" or
// "double".
func IDXShape(path string) (dims []int, typ string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	h, _, err := idxStream(f, path)
	if err != nil {
		return nil, "", err
	}
	return h.dims, idxTypes[h.typ].name, nil
}

// FormatDims writes dimensions as "60000×28×28".
func FormatDims(dims []int) string { return idxHeader{dims: dims}.shape() }

// DeclaredValues returns how many values the file at path declares in
// its header, for the formats that have one that says (IDX files,
// compressed or not), and ok = false for the others. Callers use it to
// bound the memory of reading a compressed file, whose size does not. An
// ARFF file's bound is its data lines times its attributes, since a sparse
// row ("{}", 2 bytes) stands for a whole row: the file is read through
// once to count them.
func DeclaredValues(path string) (n int64, ok bool, err error) {
	if strings.EqualFold(filepath.Ext(path), ".arff") {
		n, err := arffValues(path)
		return n, true, err
	}
	if !isIDX(path) {
		return 0, false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, true, err
	}
	defer f.Close()
	h, _, err := idxStream(f, path)
	return h.n, true, err
}
