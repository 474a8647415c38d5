package dataio

import (
	"bufio"
	"fmt"
	"io"
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
