package dataio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/drdam/drdam/internal/atomicfile"

	"github.com/drdam/drdam/npy"
)

// WriteMatrix writes m to path in the format given by its extension: .npy
// (a 2-D little-endian float64 array), .csv (commas), .tsv (tabs) or .txt
// (single spaces). Text is written one row per line, without a header,
// with values formatted so that they read back exactly. The write is
// atomic (see the package documentation).
func WriteMatrix(path string, m *Matrix) error {
	if m == nil {
		return fmt.Errorf("write %s: nil matrix", path)
	}
	if m.Rows < 0 || m.Cols < 0 {
		return fmt.Errorf("write %s: negative size %d×%d", path, m.Rows, m.Cols)
	}
	if m.Cols > 0 && m.Rows > len(m.Data)/m.Cols || m.Rows*m.Cols != len(m.Data) {
		return fmt.Errorf("write %s: a %d×%d matrix does not match len(Data) = %d", path, m.Rows, m.Cols, len(m.Data))
	}
	return write(path, []int{m.Rows, m.Cols}, m.Data)
}

// WriteVector writes v to path in the format given by its extension: .npy
// (a 1-D little-endian float64 array) or a text format (.csv, .tsv, .txt),
// where it is written as a single row. The write is atomic (see the
// package documentation).
func WriteVector(path string, v []float64) error {
	return write(path, []int{len(v)}, v)
}

// write writes data of the given 1-D or 2-D shape to path.
func write(path string, shape []int, data []float64) error {
	f, err := formatOf(path, true)
	if err != nil {
		return fmt.Errorf("write %w", err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		if f == formatNPY {
			return npy.Write(w, shape, data)
		}
		sep := byte(',')
		switch f {
		case formatTSV:
			sep = '\t'
		case formatTXT:
			sep = ' '
		}
		cols := shape[len(shape)-1]
		bw := bufio.NewWriterSize(w, 1<<16)
		var buf []byte
		for i, x := range data {
			buf = strconv.AppendFloat(buf[:0], x, 'g', -1, 64)
			if (i+1)%cols == 0 {
				buf = append(buf, '\n')
			} else {
				buf = append(buf, sep)
			}
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

// StreamWriter writes a 1-D or 2-D array to a writer a chunk of values at
// a time, in the format that a path's extension names, with the values
// and layout of WriteMatrix and WriteVector: a .npy file (little-endian
// float64, its shape in the header, so the number of rows must be known
// before the first value) or text (a matrix one row per line, a vector
// on one line). Memory holds one formatted value, whatever the size.
type StreamWriter struct {
	w          io.Writer
	npy        bool
	sep        byte
	cols       int // values per line of text; 0 for a vector (one line)
	n, want    int // values written, and declared (−1: not known, text only)
	buf        []byte
	path       string
	terminated bool
}

// NewStreamWriter returns a StreamWriter of an array of the given shape
// (1-D: a vector; 2-D: a matrix) to w, in the format of path's extension
// (path names the file in errors). The number of rows, shape[0], may be
// −1 (not known) for a text format; a .npy file writes its header here.
// The file should be written atomically (atomicfile.Write), so that an
// error leaves no part of it.
func NewStreamWriter(w io.Writer, path string, shape []int) (*StreamWriter, error) {
	f, err := formatOf(path, true)
	if err != nil {
		return nil, fmt.Errorf("write %w", err)
	}
	if len(shape) != 1 && len(shape) != 2 || len(shape) == 2 && shape[1] <= 0 || shape[0] < -1 {
		return nil, fmt.Errorf("write %s: shape %v: want one or two dimensions", path, shape)
	}
	s := &StreamWriter{w: w, path: path, want: shape[0], sep: ','}
	if len(shape) == 2 {
		s.cols = shape[1]
		if s.want >= 0 {
			s.want *= s.cols
		}
	}
	switch f {
	case formatNPY:
		if shape[0] < 0 {
			return nil, fmt.Errorf("write %s: a .npy file's header needs the number of rows", path)
		}
		s.npy = true
		_, err := w.Write(npy.EncodeHeader("<f8", shape))
		return s, err
	case formatTSV:
		s.sep = '\t'
	case formatTXT:
		s.sep = ' '
	}
	return s, nil
}

// Write writes the values of data (for a matrix, whole rows).
func (s *StreamWriter) Write(data []float64) error {
	if s.cols > 0 && len(data)%s.cols != 0 {
		return fmt.Errorf("write %s: %d values are not whole rows of %d", s.path, len(data), s.cols)
	}
	if s.want >= 0 && s.n+len(data) > s.want {
		return fmt.Errorf("write %s: more than the %d values declared", s.path, s.want)
	}
	for i, x := range data {
		if s.npy {
			s.buf = binary.LittleEndian.AppendUint64(s.buf[:0], math.Float64bits(x))
		} else {
			s.buf = s.buf[:0]
			if s.cols == 0 && s.n+i > 0 {
				s.buf = append(s.buf, s.sep)
			}
			s.buf = strconv.AppendFloat(s.buf, x, 'g', -1, 64)
			if s.cols > 0 {
				if (s.n+i+1)%s.cols == 0 {
					s.buf = append(s.buf, '\n')
				} else {
					s.buf = append(s.buf, s.sep)
				}
			}
		}
		if _, err := s.w.Write(s.buf); err != nil {
			return err
		}
	}
	s.n += len(data)
	return nil
}

// Close ends the array (the line of a text vector) and checks that the
// values written are those declared. It does not close the writer.
func (s *StreamWriter) Close() error {
	if s.want >= 0 && s.n != s.want {
		return fmt.Errorf("write %s: %d values written, %d declared", s.path, s.n, s.want)
	}
	if !s.npy && s.cols == 0 && !s.terminated {
		s.terminated = true
		_, err := s.w.Write([]byte{'\n'})
		return err
	}
	return nil
}
