package dataio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/drdam/drdam/npy"
)

// Matrix is a dense row-major matrix: the element in row i and column j
// (counted from 0) is Data[i*Cols+j].
type Matrix struct {
	Rows, Cols int
	Data       []float64
}

// MaxValues is the largest number of values (rows × attributes) that
// ParseARFF and ReadARFF hold: 2^28, 2 GiB of float64. A sparse ARFF row
// ({} or {i v}) stands for a whole row of values however short it is, so
// a small file can describe a matrix far larger than itself; a file that
// would pass MaxValues is an error naming the row, rather than an
// allocation that exhausts memory. Other formats need no such limit: a
// text file takes at least two bytes per value and a .npy file as many
// bytes as its dtype, which the readers check against the file's size
// before allocating.
const MaxValues = 1 << 28

// maxValues is MaxValues, lowered by tests.
var maxValues = MaxValues

// format is a file format, chosen by extension.
type format int

const (
	formatNPY format = iota
	formatCSV
	formatTSV
	formatTXT
	formatARFF // read only
	formatIDX  // read only: MNIST's IDX, by name (see isIDX)
)

// The extensions listed in error messages.
const (
	readExts  = ".npy, .csv, .tsv, .txt, .arff or IDX (a name ending in ubyte or .idx, optionally .gz)"
	writeExts = ".npy, .csv, .tsv or .txt"
)

// formatOf returns the format of path from its extension. The formats
// listed in its errors are those that can be written if write is true,
// and those that can be read otherwise.
func formatOf(path string, write bool) (format, error) {
	exts := readExts
	if write {
		exts = writeExts
	}
	if isIDX(path) {
		if write {
			return 0, fmt.Errorf("%s: writing IDX files is not supported (want %s)", path, exts)
		}
		return formatIDX, nil
	}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".npy":
		return formatNPY, nil
	case ".csv":
		return formatCSV, nil
	case ".tsv":
		return formatTSV, nil
	case ".txt":
		return formatTXT, nil
	case ".arff":
		if write {
			return 0, fmt.Errorf("%s: writing .arff files is not supported (want %s)", path, exts)
		}
		return formatARFF, nil
	case "":
		return 0, fmt.Errorf("%s: no file extension (want %s)", path, exts)
	default:
		return 0, fmt.Errorf("%s: unsupported extension %q (want %s)", path, ext, exts)
	}
}

// ReadMatrix reads a matrix from path, in the format given by its
// extension (see the package documentation). A 2-D .npy array is read as
// is, and a 1-D .npy array of length n as one row (1×n); any other number of
// dimensions is an error naming the shape. A text file gives one matrix row
// per data line. An .arff file gives its numeric attributes, one row per
// instance (see ARFF.Numeric); its other attributes are dropped, and a
// missing numeric value is an error. An IDX file (MNIST's format, plain or
// gzip-compressed) gives one row per entry of its first dimension, the
// others flattened, unsigned bytes scaled to [0, 1/√D] as package imageio
// scales pixels.
//
// ReadMatrix does not reject NaN or infinite values; call CheckFinite for
// that. It does reject a matrix with no elements.
func ReadMatrix(path string) (*Matrix, error) {
	return readMatrix(path, parseNumber)
}

// readMatrix reads a matrix from path, parsing the fields of a text file
// with parse.
func readMatrix(path string, parse func(string) (float64, error)) (*Matrix, error) {
	f, err := formatOf(path, false)
	if err != nil {
		return nil, err
	}
	file, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if f == formatNPY {
			return nil, fmt.Errorf("read %s: %w", path, err) // as npy.ReadFile says it
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer file.Close()
	return decodeMatrix(file, path, f, parse)
}

// decodeMatrix reads a matrix in format f from r, which holds the file
// called path (a name for messages only), parsing the fields of a text
// file with parse. It is ReadMatrix and ReadMask after the file is opened,
// and what the fuzz targets call.
func decodeMatrix(r io.Reader, path string, f format, parse func(string) (float64, error)) (*Matrix, error) {
	switch f {
	case formatNPY:
		a, err := npy.Read(r)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return npyMatrix(path, a)
	case formatARFF:
		return arffMatrix(r, path)
	case formatIDX:
		// Every value is checked to be there before the matrix is
		// allocated (idxOpen), unless the input is a stream.
		h, zr, err := idxOpen(r, path, func(h idxHeader) int64 {
			if h.n > int64(maxValues) {
				return 0 // refused by idxMatrix
			}
			return h.n * int64(h.size())
		})
		if err != nil {
			return nil, err
		}
		return idxMatrix(zr, path, h)
	}
	return parseText(r, path, f, parse)
}

// npyMatrix returns the matrix of a 1-D or 2-D array read from path.
func npyMatrix(path string, a *npy.Array) (*Matrix, error) {
	var m *Matrix
	switch len(a.Shape) {
	case 1:
		m = &Matrix{Rows: 1, Cols: a.Shape[0], Data: a.Data}
	case 2:
		m = &Matrix{Rows: a.Shape[0], Cols: a.Shape[1], Data: a.Data}
	default:
		return nil, fmt.Errorf("%s: want a 1-D or 2-D array, found %d-D shape %s", path, len(a.Shape), npy.FormatShape(a.Shape))
	}
	if len(m.Data) == 0 {
		return nil, fmt.Errorf("%s: no data: the array has shape %s", path, npy.FormatShape(a.Shape))
	}
	return m, nil
}

// ReadVector reads a vector from path: a 1-D .npy array, or a 2-D .npy
// array or text file with a single row or a single column.
func ReadVector(path string) ([]float64, error) {
	m, err := ReadMatrix(path)
	if err != nil {
		return nil, err
	}
	return asVector(path, m)
}

func asVector(path string, m *Matrix) ([]float64, error) {
	if m.Rows != 1 && m.Cols != 1 {
		return nil, fmt.Errorf("%s: want a vector (a single row or column), found %d rows and %d columns", path, m.Rows, m.Cols)
	}
	return m.Data, nil
}

// ReadMask reads a mask of length d from path, as ReadVector reads a
// vector. A nonzero value is true and zero is false; a .npy file may hold
// bools or numbers, and a text file may also hold true and false (in any
// case). A mask whose length is not d is an error "mask PATH: want D=d,
// found n values (R×C)", and a NaN is an error naming its
// row and column, counted from 1 as in every error of this package.
func ReadMask(path string, d int) ([]bool, error) {
	m, err := readMatrix(path, parseBool)
	if err != nil {
		return nil, err
	}
	return maskOf(path, m, d)
}

// ReadMasks reads the clamp masks of b queries of dimension d from path:
// one mask for every query (a vector of length d, as ReadMask reads it) or
// a row per query (a b×d matrix: a text file of b rows, a 2-D .npy array).
// It returns d values or b·d values, row-major, in the form of
// dam.RecallOptions.Clamp. Other shapes are an error naming both that
// would do and what was found; a NaN is an error naming its row and
// column.
func ReadMasks(path string, d, b int) ([]bool, error) {
	m, err := readMatrix(path, parseBool)
	if err != nil {
		return nil, err
	}
	if m.Rows == b && m.Cols == d && b > 1 {
		return boolsOf(path, m)
	}
	if (m.Rows == 1 || m.Cols == 1) && len(m.Data) == d {
		return maskOf(path, m, d)
	}
	return nil, fmt.Errorf("mask %s: want D=%d values (one mask for every query) or B×D = %d×%d (a row per query), found %d×%d", path, d, b, d, m.Rows, m.Cols)
}

// boolsOf returns the values of m, read from path, as booleans: nonzero
// is true; a NaN is an error naming its row and column.
func boolsOf(path string, m *Matrix) ([]bool, error) {
	cols := max(m.Cols, 1)
	mask := make([]bool, len(m.Data))
	for i, x := range m.Data {
		if math.IsNaN(x) {
			return nil, fmt.Errorf("mask %s: row %d, column %d: NaN is neither true nor false", path, i/cols+1, i%cols+1)
		}
		mask[i] = x != 0
	}
	return mask, nil
}

// maskOf returns the mask of length d that m, read from path, holds.
func maskOf(path string, m *Matrix, d int) ([]bool, error) {
	v, err := asVector(path, m)
	if err != nil {
		return nil, fmt.Errorf("mask %w", err)
	}
	if len(v) != d {
		return nil, fmt.Errorf("mask %s: want D=%d, found %d %s (%d×%d)", path, d, len(v), plural(len(v), "value", "values"), m.Rows, m.Cols)
	}
	return boolsOf(path, m)
}

// CheckFinite returns an error naming the first NaN or infinite element
// of m, such as "PATH: row 3, column 7: NaN", or nil if every element is
// finite. Rows and columns are counted from 1, as a spreadsheet shows
// them; a row is a row of the matrix, which in a text file with a header,
// comments or blank lines is not the same as the line number. PATH is only
// used in the message.
func CheckFinite(path string, m *Matrix) error {
	cols := max(m.Cols, 1)
	for i, x := range m.Data {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: row %d, column %d: %v", path, i/cols+1, i%cols+1, strconv.FormatFloat(x, 'g', -1, 64))
		}
	}
	return nil
}

// plural returns one if n is 1 and many otherwise.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
