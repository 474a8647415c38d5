package npy_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drdam/drdam/npy"
)

// readChunks reads the whole array of r with a Reader, chunk elements at a
// time.
func readChunks(r io.Reader, chunk int) (*npy.Reader, []float64, error) {
	rd, err := npy.NewReader(r)
	if err != nil {
		return nil, nil, err
	}
	var out []float64
	buf := make([]float64, chunk)
	for {
		n, err := rd.Read(buf)
		if err == io.EOF {
			return rd, out, nil
		}
		if err != nil {
			return rd, nil, err
		}
		if n == 0 {
			return rd, nil, errors.New("Read returned no elements and no error")
		}
		out = append(out, buf[:n]...)
	}
}

// TestReaderMatchesRead checks that reading every fixture in chunks of
// any size gives what Read gives, bit for bit: in C order from a stream,
// and, for the Fortran-order fixture, by columns from a file.
func TestReaderMatchesRead(t *testing.T) {
	ents, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".npy") {
			continue
		}
		b, err := os.ReadFile(filepath.Join("testdata", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		want, err := npy.Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		fortran := strings.Contains(e.Name(), "fortran")
		for _, chunk := range []int{1, 2, 3, 5, 7, 64, 1 << 16} {
			for name, r := range readers(b) {
				rd, got, err := readChunks(r(), chunk)
				if fortran && name == "stream" {
					if err == nil || !strings.Contains(err.Error(), "needs a file") {
						t.Errorf("%s (stream): error %v, want one saying a Fortran array needs a file", e.Name(), err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s (%s, chunk %d): %v", e.Name(), name, chunk, err)
				}
				if !sameFloats(got, want.Data) || rd.Len() != len(want.Data) {
					t.Errorf("%s (%s, chunk %d): got %v, want %v", e.Name(), name, chunk, got, want.Data)
				}
			}
		}
	}
}

// TestReaderFortranColumns reads Fortran-order matrices of every shape
// from 1×1 to 5×4, with axes of length 1 around them, in chunks that cut
// rows anywhere.
func TestReaderFortranColumns(t *testing.T) {
	for rows := 1; rows <= 5; rows++ {
		for cols := 1; cols <= 4; cols++ {
			for _, shape := range [][]int{{rows, cols}, {1, rows, 1, cols}} {
				n := rows * cols
				// Element (i, j) is 10i + j, stored column by column.
				data := make([]byte, 0, 4*n)
				want := make([]float64, n)
				for j := range cols {
					for i := range rows {
						data = append(data, encode(binary.LittleEndian, int32(10*i+j))...)
					}
				}
				for i := range rows {
					for j := range cols {
						want[i*cols+j] = float64(10*i + j)
					}
				}
				b := build(1, "{'descr': '<i4', 'fortran_order': True, 'shape': ("+shapeText(shape)+"), }", data)
				for chunk := 1; chunk <= n+1; chunk++ {
					_, got, err := readChunks(bytes.NewReader(b), chunk)
					if err != nil {
						t.Fatalf("%v chunk %d: %v", shape, chunk, err)
					}
					if !sameFloats(got, want) {
						t.Fatalf("%v chunk %d: got %v, want %v", shape, chunk, got, want)
					}
				}
			}
		}
	}
}

// TestReaderErrors checks the errors of reading in chunks: a stream that
// ends early says in which row, bytes after the data are found at the
// end, and more than two long axes in Fortran order are refused.
func TestReaderErrors(t *testing.T) {
	f8 := build(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2), }", make([]byte, 8*8))
	for _, tc := range []struct {
		name string
		r    io.Reader
		want string
	}{
		{"truncated stream", streamReader{bytes.NewReader(f8[:len(f8)-20])}, "found only 44 bytes: the data stops in row 3 of 4"},
		{"truncated file", bytes.NewReader(f8[:len(f8)-20]), "found only 44 bytes: the data stops in row 3 of 4"},
		{"trailing stream", streamReader{bytes.NewReader(append(f8, 1, 2))}, "2 bytes after the data"},
		{"trailing file", bytes.NewReader(append(f8, 1, 2)), "2 bytes after the data"},
		{"fortran 3-D", bytes.NewReader(build(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2, 2), }", make([]byte, 64))), "not read in chunks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readChunks(tc.r, 3)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// shapeText writes shape as the inside of a Python tuple: "2, 3".
func shapeText(shape []int) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = fmt.Sprint(d)
	}
	return strings.Join(s, ", ")
}
