package dataio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/drdam/drdam/npy"
)

// Rows reads the rows of one matrix file, or of several files (shards) one
// after another, a chunk at a time: memory holds a chunk, whatever the
// number of rows. Every format that ReadMatrix reads is read, with the
// same values and the same errors; a .npy array is read in C order (a
// Fortran-order one needs a file, which it reads by columns).
//
// A Rows is not safe for concurrent use.
type Rows struct {
	paths  []string // files after the current one (OpenRows)
	name   string   // the current file
	src    rowSource
	closer io.Closer // the current file, if Rows opened it
	count  *counter  // bytes read from the current file
	cols   int
	// missing reads an empty field (and ARFF's ?) as NaN, a missing
	// entry (OpenRowsMissing).
	missing bool
	row     int // rows read from the current file
	first   int // the row of the current file at which the last chunk starts
	total   int64
	// Bytes of the files finished, and of all of them (or -1 if a size is
	// not known), for Progress.
	bytesDone, bytesAll int64
}

// rowSource reads the rows of one file.
type rowSource interface {
	// width returns the number of values in a row.
	width() int
	// read reads up to len(dst)/width() rows into dst and returns how
	// many, or 0 and io.EOF after the last row.
	read(dst []float64) (int, error)
}

// NewRows returns the Rows of the matrix file that r holds; name, a file
// name or path, chooses the format by its extension as ReadMatrix does
// and names the file in errors. The header, and for a text file its first
// data row, are read here; a file with no data rows is an error.
func NewRows(r io.Reader, name string) (*Rows, error) {
	rs := &Rows{bytesAll: -1}
	if err := rs.start(r, name); err != nil {
		return nil, err
	}
	return rs, nil
}

// OpenRows opens pattern for reading by rows: a file, a glob such as
// "shards/part-*.npy" (see filepath.Match), or a folder whose files are
// the shards, but for those whose names start with '.' or '_' (such as
// the _SUCCESS markers of Hadoop and Spark). The files are read in
// the order of their names, and must have the same number of columns.
// A glob or a folder with no file is an error.
func OpenRows(pattern string) (*Rows, error) { return openRows(pattern, false) }

// OpenRowsMissing opens pattern as OpenRows does, for rows with missing
// entries: an empty field of a CSV/TSV file and a missing value (?) of an
// ARFF file are read as NaN, as are the NaN and nan that every format
// reads (a .npy NaN is NaN). drdam complete reads its queries this way;
// what a NaN means is the caller's (dam.Complete: a missing entry).
func OpenRowsMissing(pattern string) (*Rows, error) { return openRows(pattern, true) }

func openRows(pattern string, missing bool) (*Rows, error) {
	paths, err := ShardPaths(pattern)
	if err != nil {
		return nil, err
	}
	rs := &Rows{paths: paths[1:], bytesAll: 0, missing: missing}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			rs.bytesAll = -1
			break
		}
		rs.bytesAll += st.Size()
	}
	if err := rs.open(paths[0]); err != nil {
		return nil, err
	}
	return rs, nil
}

// ShardPaths returns the files that pattern names, as OpenRows reads them:
// the file itself, the files that a glob matches, or the files of a
// folder, in the order of their names. Folders that a glob matches,
// files whose names start with '.', and in a folder those that start with
// '_', are left out.
func ShardPaths(pattern string) ([]string, error) {
	if st, err := os.Stat(pattern); err == nil {
		if !st.IsDir() {
			return []string{pattern}, nil
		}
		ents, err := os.ReadDir(pattern)
		if err != nil {
			return nil, err
		}
		var paths []string
		for _, e := range ents {
			if !e.IsDir() && IsShard(e.Name(), true) {
				paths = append(paths, filepath.Join(pattern, e.Name()))
			}
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("%s: a folder with no files of patterns (want files in %s)", pattern, readExts)
		}
		return paths, nil
	}
	if !strings.ContainsAny(pattern, "*?[") {
		_, err := os.Stat(pattern)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", pattern, err)
	}
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pattern, err)
	}
	var paths []string
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && !st.IsDir() && IsShard(filepath.Base(m), false) {
			paths = append(paths, m)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no file matches", pattern)
	}
	slices.Sort(paths)
	return paths, nil
}

// IsShard reports whether a file of this base name is a shard of
// patterns: not one whose name starts with '.', nor, in a folder (inFolder
// set), one that starts with '_' (such as the _SUCCESS markers of Hadoop
// and Spark). OpenRows, ShardPaths and the Beam pipeline apply it.
func IsShard(base string, inFolder bool) bool {
	return !strings.HasPrefix(base, ".") && (!inFolder || !strings.HasPrefix(base, "_"))
}

// open opens the file at path and starts reading it.
func (rs *Rows) open(path string) error {
	if _, err := formatOf(path, false); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := rs.start(f, path); err != nil {
		f.Close()
		return err
	}
	rs.closer = f
	return nil
}

// start starts reading the file called name from r.
func (rs *Rows) start(r io.Reader, name string) error {
	f, err := formatOf(name, false)
	if err != nil {
		return err
	}
	rs.count = newCounter(r)
	r = rs.count.reader()
	var src rowSource
	switch f {
	case formatNPY:
		src, err = newNPYRows(r, name)
	case formatARFF:
		src, err = newARFFRows(r, name, rs.missing)
	case formatIDX:
		src, err = newIDXStream(r, name)
	default:
		parse := parseNumber
		if rs.missing {
			parse = parseMissing
		}
		src, err = newTextRows(r, name, f, parse)
	}
	if err != nil {
		return err
	}
	if rs.src != nil && src.width() != rs.cols {
		return fmt.Errorf("%s: rows of %d values, but those of %s before it have %d: the shards of one matrix have the same number of columns", name, src.width(), rs.name, rs.cols)
	}
	rs.src, rs.name, rs.cols, rs.row, rs.first = src, name, src.width(), 0, 0
	return nil
}

// Cols returns the number of values in a row.
func (rs *Rows) Cols() int { return rs.cols }

// Name returns the file that the last chunk came from.
func (rs *Rows) Name() string { return rs.name }

// Before returns the number of rows of the current file (Name) before
// those that the last Read returned: add it to a row of the chunk,
// counted from 1, to name the row of the file.
func (rs *Rows) Before() int { return rs.first }

// Total returns the number of rows read so far, from all files.
func (rs *Rows) Total() int64 { return rs.total }

// Progress returns the bytes of input read so far and in all, or −1 for
// the second if a file's size is not known (NewRows, or a file that is
// not a regular file). Bytes are those of the files as stored, compressed
// for a .gz file, and include what is buffered ahead of the rows returned.
func (rs *Rows) Progress() (done, all int64) {
	return rs.bytesDone + rs.count.n, rs.bytesAll
}

// Read reads up to len(dst)/Cols() rows into dst, all from one file, and
// returns how many; after the last row of the last file it returns 0 and
// io.EOF. A dst shorter than a row is an error. Errors name the file, and
// the row and column where they can.
func (rs *Rows) Read(dst []float64) (int, error) {
	if len(dst) < rs.cols {
		return 0, fmt.Errorf("dataio: a buffer of %d values is shorter than a row of %d", len(dst), rs.cols)
	}
	dst = dst[:len(dst)/rs.cols*rs.cols]
	for {
		k, err := rs.src.read(dst)
		if err == io.EOF {
			if rs.row == 0 {
				return 0, fmt.Errorf("%s: no data rows", rs.name)
			}
			if len(rs.paths) == 0 {
				return 0, io.EOF
			}
			rs.bytesDone += rs.count.n
			if err := rs.Close(); err != nil {
				return 0, err
			}
			next := rs.paths[0]
			rs.paths = rs.paths[1:]
			if err := rs.open(next); err != nil {
				return 0, err
			}
			continue
		}
		if err != nil {
			if f, _ := formatOf(rs.name, false); f == formatNPY {
				err = fmt.Errorf("read %s: %w", rs.name, err) // as ReadMatrix says it
			}
			return 0, err
		}
		rs.first = rs.row
		rs.row += k
		rs.total += int64(k)
		return k, nil
	}
}

// CheckFinite returns an error naming the file, row and column of the
// first NaN or infinite value of chunk, the rows that the last Read
// returned (or their first ones), as CheckFinite names them in a Matrix;
// or nil if every value is finite. Rows opened by OpenRowsMissing may
// hold NaN, a missing entry: only an infinite value is an error there.
func (rs *Rows) CheckFinite(chunk []float64) error {
	for i, x := range chunk {
		if math.IsInf(x, 0) || math.IsNaN(x) && !rs.missing {
			msg := ""
			if rs.missing {
				msg = ": a missing entry is NaN or an empty field, a visible one a finite number"
			}
			return fmt.Errorf("%s: row %d, column %d: %v%s", rs.name, rs.first+i/rs.cols+1, i%rs.cols+1, strconv.FormatFloat(x, 'g', -1, 64), msg)
		}
	}
	return nil
}

// Close closes the file being read, if OpenRows opened it.
func (rs *Rows) Close() error {
	if rs.closer == nil {
		return nil
	}
	err := rs.closer.Close()
	rs.closer = nil
	return err
}

// counter counts the bytes read from a reader, keeping the io.Seeker and
// io.ReaderAt of a file that the .npy reader uses.
type counter struct {
	r io.Reader
	n int64
}

func newCounter(r io.Reader) *counter { return &counter{r: r} }

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// reader returns c, as an io.ReadSeeker and io.ReaderAt if the reader it
// counts is both.
func (c *counter) reader() io.Reader {
	type file interface {
		io.ReadSeeker
		io.ReaderAt
	}
	if f, ok := c.r.(file); ok {
		return &countFile{c, f}
	}
	return c
}

// countFile is a counter of a file.
type countFile struct {
	*counter
	f interface {
		io.ReadSeeker
		io.ReaderAt
	}
}

// Seek seeks the file; a seek from its start sets the count of bytes read
// to the offset, so that a file read again from there (an IDX file read
// through its first row, see idxOpen) is not counted twice.
func (c *countFile) Seek(off int64, whence int) (int64, error) {
	n, err := c.f.Seek(off, whence)
	if err == nil && whence == io.SeekStart {
		c.n = n
	}
	return n, err
}

func (c *countFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.f.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// npyRows reads the rows of a 1-D (one row) or 2-D .npy array.
type npyRows struct {
	rd   *npy.Reader
	cols int
}

func newNPYRows(r io.Reader, name string) (*npyRows, error) {
	_, known := sizeLeft(r)
	var ahead *aheadReader
	if !known {
		ahead = &aheadReader{r: r}
		r = ahead
	}
	rd, err := npy.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	h := rd.Header()
	if ahead != nil && (len(h.Shape) == 1 || len(h.Shape) == 2) && rd.Len() > 0 {
		// A stream: the header's width is not backed by the input's size
		// (which npy.NewReader checks for a file), so the first row is
		// read ahead, as the data arrives, before a caller sizes
		// anything by the width (see aheadReader).
		cols := h.Shape[len(h.Shape)-1]
		want := int64(cols) * int64(rd.ElemSize())
		if got, err := ahead.ahead(min(want, maxAhead)); got < min(want, maxAhead) {
			if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, fmt.Errorf("read %s: npy: truncated: header says %d elements (%d bytes), found only %d bytes: the data stops in row 1 of %d",
					name, rd.Len(), int64(rd.Len())*int64(rd.ElemSize()), got, rd.Len()/cols)
			}
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if want > maxAhead {
			return nil, fmt.Errorf("%s: shape %s: rows of %d bytes, more than the %d that are read ahead of a stream to check that a row is there; read it from a file", name, npy.FormatShape(h.Shape), want, maxAhead)
		}
	}
	s := &npyRows{rd: rd}
	switch len(h.Shape) {
	case 1:
		s.cols = h.Shape[0]
	case 2:
		s.cols = h.Shape[1]
	default:
		return nil, fmt.Errorf("%s: want a 1-D or 2-D array, found %d-D shape %s", name, len(h.Shape), npy.FormatShape(h.Shape))
	}
	if rd.Len() == 0 {
		return nil, fmt.Errorf("%s: no data: the array has shape %s", name, npy.FormatShape(h.Shape))
	}
	return s, nil
}

func (s *npyRows) width() int { return s.cols }

func (s *npyRows) read(dst []float64) (int, error) {
	n, err := s.rd.Read(dst)
	return n / s.cols, err
}

// width returns the values in a row of a text file.
func (t *textRows) width() int { return t.cols }

func (t *textRows) read(dst []float64) (int, error) {
	k := 0
	for ; (k+1)*t.cols <= len(dst); k++ {
		err := t.next()
		if err == io.EOF && k > 0 {
			break
		}
		if err != nil {
			return 0, err
		}
		copy(dst[k*t.cols:], t.values)
	}
	return k, nil
}

func (s *idxRows) width() int { return s.cols }

// maxAhead is the most that NewRows reads ahead of a stream that cannot
// seek (a pipe, a remote object), to check that its first row is there
// before a caller sizes anything by its width: 256 MiB, a row of 2^25
// float64 values or 2^28 bytes. A wider row from such a stream is an
// error; from a file it is read through and the file read again.
var maxAhead int64 = 1 << 28 // lowered by tests

// newIDXStream reads the header of an IDX file from r and returns the
// reader of its rows. Its first row is known to be there before its width
// is reported: a file's size holds it, a compressed file is read through
// it and rewound (idxOpen), and a stream that cannot seek has it read
// ahead, as it arrives, up to maxAhead (see aheadReader). A header
// declaring rows wider than its data is an error after at most the bytes
// that arrived.
func newIDXStream(r io.Reader, name string) (*idxRows, error) {
	h, r, err := idxOpen(r, name, func(h idxHeader) int64 { return h.rowLen() * int64(h.size()) })
	if err != nil {
		return nil, err
	}
	if !h.first {
		want := h.rowLen() * int64(h.size())
		a := &aheadReader{r: r}
		if got, err := a.ahead(min(want, maxAhead)); got < min(want, maxAhead) {
			return nil, h.truncated(name, got, err)
		}
		if want > maxAhead {
			return nil, fmt.Errorf("%s: the IDX header declares %s: rows of %d bytes, more than the %d that are read ahead of a stream to check that a row is there; read it from a file", name, h.declares(), want, maxAhead)
		}
		r = a
	}
	return newIDXRows(r, name, h), nil
}

// aheadReader reads ahead of its consumer: ahead(n) reads up to n more
// bytes from r into memory, and Read returns them before reading on. The
// memory grows with the bytes as they arrive, doubling from 64 KiB, so
// that it never holds more than twice what arrived (and 64 KiB), whatever
// a header declared.
type aheadReader struct {
	r   io.Reader
	buf []byte
	off int
}

func (a *aheadReader) Read(p []byte) (int, error) {
	if a.off < len(a.buf) {
		n := copy(p, a.buf[a.off:])
		a.off += n
		if a.off == len(a.buf) {
			a.buf, a.off = nil, 0
		}
		return n, nil
	}
	return a.r.Read(p)
}

// ahead reads up to n bytes more from r and keeps them for Read. It
// returns the bytes read ahead, fewer than n only with the error that
// stopped it (io.EOF or io.ErrUnexpectedEOF at the end of r).
func (a *aheadReader) ahead(n int64) (int64, error) {
	var got int64
	for got < n {
		if len(a.buf) == cap(a.buf) {
			c := int64(len(a.buf)) + min(n-got, max(int64(cap(a.buf)), 1<<16))
			grown := make([]byte, len(a.buf), c)
			copy(grown, a.buf)
			a.buf = grown
		}
		k, err := io.ReadFull(a.r, a.buf[len(a.buf):cap(a.buf)])
		a.buf = a.buf[:len(a.buf)+k]
		got += int64(k)
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

// arffRows reads the numeric attributes of an ARFF file's rows.
type arffRows struct {
	p       *arffParser
	numeric []int // the numeric attributes
	row     []float64
	strs    []string
	missing bool // a missing value (?) is NaN, not an error
}

func newARFFRows(r io.Reader, name string, missing bool) (*arffRows, error) {
	p := &arffParser{r: bufio.NewReaderSize(r, 1<<16), a: &ARFF{name: name}}
	skipBOM(p.r)
	if err := p.header(); err != nil {
		return nil, err
	}
	s := &arffRows{p: p, row: make([]float64, len(p.a.Attributes)), strs: make([]string, len(p.a.Attributes)), missing: missing}
	for j, at := range p.a.Attributes {
		if at.Type == Numeric {
			s.numeric = append(s.numeric, j)
		}
	}
	if len(s.numeric) == 0 {
		return nil, fmt.Errorf("%sno numeric attributes (found %d of other types)", p.a.prefix(), len(p.a.Attributes))
	}
	p.startData()
	return s, nil
}

func (s *arffRows) width() int { return len(s.numeric) }

func (s *arffRows) read(dst []float64) (int, error) {
	c, a := len(s.numeric), s.p.a
	k := 0
	for ; (k+1)*c <= len(dst); k++ {
		err := s.p.row(s.row, s.strs)
		if err == io.EOF && k > 0 {
			break
		}
		if err != nil {
			return 0, err
		}
		for i, j := range s.numeric {
			if math.IsNaN(s.row[j]) && !s.missing {
				return 0, fmt.Errorf("%s:%d: row %d, field %d (%s): want a number, found a missing value", a.name, s.p.line, a.Rows+1, j+1, quoteName(a.Attributes[j].Name))
			}
			dst[k*c+i] = s.row[j]
		}
		a.Rows++
	}
	return k, nil
}
