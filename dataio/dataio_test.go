package dataio_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/npy"
)

// sameFloats reports whether a and b hold the same values bit for bit,
// except that any NaN equals any NaN.
func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.IsNaN(a[i]) && math.IsNaN(b[i]) {
			continue
		}
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// writeFile writes content to name in a new temporary directory and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeNPY writes an array to name in a new temporary directory and
// returns its path.
func writeNPY(t *testing.T, name string, shape []int, data []float64) string {
	t.Helper()
	var buf bytes.Buffer
	if err := npy.Write(&buf, shape, data); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, name, buf.String())
}

var negZero = math.Copysign(0, -1)

func TestMatrixRoundTrip(t *testing.T) {
	tricky := []float64{0.1, negZero, 1e-300, 1.0 / 3, math.MaxFloat64, math.SmallestNonzeroFloat64,
		-123456789.125, 1e21, 5e-324, 2.5, math.Inf(1), math.Inf(-1), math.NaN(), 0, 1, -1}
	matrices := []struct {
		name string
		m    dataio.Matrix
	}{
		{"1x1", dataio.Matrix{Rows: 1, Cols: 1, Data: []float64{0.1}}},
		{"1x16", dataio.Matrix{Rows: 1, Cols: 16, Data: tricky}},
		{"16x1", dataio.Matrix{Rows: 16, Cols: 1, Data: tricky}},
		{"4x4", dataio.Matrix{Rows: 4, Cols: 4, Data: tricky}},
		{"2x8", dataio.Matrix{Rows: 2, Cols: 8, Data: tricky}},
	}
	for _, ext := range []string{".npy", ".csv", ".tsv", ".txt", ".CSV"} {
		for _, tc := range matrices {
			t.Run(tc.name+ext, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "m"+ext)
				if err := dataio.WriteMatrix(path, &tc.m); err != nil {
					t.Fatal(err)
				}
				got, err := dataio.ReadMatrix(path)
				if err != nil {
					t.Fatal(err)
				}
				if got.Rows != tc.m.Rows || got.Cols != tc.m.Cols || !sameFloats(got.Data, tc.m.Data) {
					t.Errorf("read %d×%d %v, want %d×%d %v", got.Rows, got.Cols, got.Data, tc.m.Rows, tc.m.Cols, tc.m.Data)
				}
			})
		}
	}
}

func TestWriteCSVFormat(t *testing.T) {
	for _, tc := range []struct {
		ext  string
		want string
	}{
		{".csv", "0.1,-0,1e-300\nNaN,+Inf,-Inf\n"},
		{".tsv", "0.1\t-0\t1e-300\nNaN\t+Inf\t-Inf\n"},
		{".txt", "0.1 -0 1e-300\nNaN +Inf -Inf\n"},
	} {
		path := filepath.Join(t.TempDir(), "m"+tc.ext)
		m := &dataio.Matrix{Rows: 2, Cols: 3, Data: []float64{0.1, negZero, 1e-300, math.NaN(), math.Inf(1), math.Inf(-1)}}
		if err := dataio.WriteMatrix(path, m); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%s: wrote %q, want %q", tc.ext, b, tc.want)
		}
	}
}

func TestVectorRoundTrip(t *testing.T) {
	v := []float64{0.1, negZero, 1e-300, 7}
	for _, ext := range []string{".npy", ".csv", ".tsv", ".txt"} {
		path := filepath.Join(t.TempDir(), "v"+ext)
		if err := dataio.WriteVector(path, v); err != nil {
			t.Fatal(err)
		}
		got, err := dataio.ReadVector(path)
		if err != nil {
			t.Fatal(err)
		}
		if !sameFloats(got, v) {
			t.Errorf("%s: read %v, want %v", ext, got, v)
		}
		// A vector reads as one row.
		m, err := dataio.ReadMatrix(path)
		if err != nil {
			t.Fatal(err)
		}
		if m.Rows != 1 || m.Cols != len(v) {
			t.Errorf("%s: ReadMatrix of a vector is %d×%d, want 1×%d", ext, m.Rows, m.Cols, len(v))
		}
	}
	// The .npy file is 1-D.
	path := filepath.Join(t.TempDir(), "v.npy")
	if err := dataio.WriteVector(path, v); err != nil {
		t.Fatal(err)
	}
	a, err := npy.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Shape, []int{4}) || a.Descr != "<f8" {
		t.Errorf("vector written as %s %v, want <f8 [4]", a.Descr, a.Shape)
	}
}

func TestReadMatrixText(t *testing.T) {
	for _, tc := range []struct {
		name, file, content string
		rows, cols          int
		data                []float64
	}{
		{"plain", "a.csv", "1,2,3\n4,5,6\n", 2, 3, []float64{1, 2, 3, 4, 5, 6}},
		{"no final newline", "a.csv", "1,2\n3,4", 2, 2, []float64{1, 2, 3, 4}},
		{"CRLF", "a.csv", "1,2\r\n3,4\r\n", 2, 2, []float64{1, 2, 3, 4}},
		{"header", "a.csv", "x,y,z\n1,2,3\n", 1, 3, []float64{1, 2, 3}},
		{"quoted header", "a.csv", "\"x, first\",\"y\"\n1,2\n", 1, 2, []float64{1, 2}},
		{"empty header fields", "a.csv", ",,\n1,2,3\n", 1, 3, []float64{1, 2, 3}},
		{"BOM and header", "a.csv", "\ufeffa,b\n1,2\n", 1, 2, []float64{1, 2}},
		{"BOM without header", "a.csv", "\ufeff1,2\n", 1, 2, []float64{1, 2}},
		{"comments and blank lines", "a.csv", "# made by hand\n\nx,y\n\n1,2\n# middle\n   \n3,4\n\n", 2, 2, []float64{1, 2, 3, 4}},
		{"spaces around fields", "a.csv", " 1 , 2\n3 ,\t4 \n", 2, 2, []float64{1, 2, 3, 4}},
		{"quoted numbers", "a.csv", "\"1\",\"2.5\"\n", 1, 2, []float64{1, 2.5}},
		{"nan and inf", "a.csv", "nan,inf,-inf\nNaN,+Inf,-Infinity\n", 2, 3,
			[]float64{math.NaN(), math.Inf(1), math.Inf(-1), math.NaN(), math.Inf(1), math.Inf(-1)}},
		{"exponents", "a.csv", "1e-300,-0,0.1,1E5\n", 1, 4, []float64{1e-300, negZero, 0.1, 1e5}},
		{"tsv", "a.tsv", "a\tb\n1\t2\n3\t4\n", 2, 2, []float64{1, 2, 3, 4}},
		{"txt spaces", "a.txt", "# numpy.savetxt header\n1.0 2.0  3.0\n\t4 5\t 6\n", 2, 3, []float64{1, 2, 3, 4, 5, 6}},
		{"txt commas", "a.txt", "1, 2,3\n4 ,5,6\n", 2, 3, []float64{1, 2, 3, 4, 5, 6}},
		{"txt header", "a.txt", "x y\n1 2\n", 1, 2, []float64{1, 2}},
		{"one column", "a.csv", "v\n1\n2\n3\n", 3, 1, []float64{1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := dataio.ReadMatrix(writeFile(t, tc.file, tc.content))
			if err != nil {
				t.Fatal(err)
			}
			if m.Rows != tc.rows || m.Cols != tc.cols || !sameFloats(m.Data, tc.data) {
				t.Errorf("read %d×%d %v, want %d×%d %v", m.Rows, m.Cols, m.Data, tc.rows, tc.cols, tc.data)
			}
		})
	}
}

func TestReadMatrixNPY(t *testing.T) {
	for _, tc := range []struct {
		name       string
		shape      []int
		rows, cols int
	}{
		{"1-D is one row", []int{3}, 1, 3},
		{"2-D", []int{3, 1}, 3, 1},
		{"2-D wide", []int{1, 3}, 1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := dataio.ReadMatrix(writeNPY(t, "a.npy", tc.shape, []float64{1, 2, 3}))
			if err != nil {
				t.Fatal(err)
			}
			if m.Rows != tc.rows || m.Cols != tc.cols || !slices.Equal(m.Data, []float64{1, 2, 3}) {
				t.Errorf("read %d×%d %v, want %d×%d [1 2 3]", m.Rows, m.Cols, m.Data, tc.rows, tc.cols)
			}
		})
	}
	// The NumPy-written fixtures of package npy, including a float32 and a
	// Fortran-order one.
	for _, tc := range []struct {
		file       string
		rows, cols int
		data       []float64
	}{
		{"f4_2d.npy", 2, 3, []float64{0.5, -1.25, 3, float64(float32(1e-3)), 65504, negZero}},
		{"fortran_f8.npy", 2, 3, []float64{0, 1, 2, 3, 4, 5}},
		{"b1_1d.npy", 1, 5, []float64{1, 0, 1, 1, 0}},
	} {
		m, err := dataio.ReadMatrix(filepath.Join("..", "npy", "testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if m.Rows != tc.rows || m.Cols != tc.cols || !sameFloats(m.Data, tc.data) {
			t.Errorf("%s: read %d×%d %v, want %d×%d %v", tc.file, m.Rows, m.Cols, m.Data, tc.rows, tc.cols, tc.data)
		}
	}
}

func TestReadMatrixErrors(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		name, file, content string
		want                string // with PATH for the file's path
	}{
		{"empty file", "a.csv", "", "PATH: no data rows"},
		{"only blank lines", "a.csv", "\n\n  \n", "PATH: no data rows"},
		{"header only", "a.csv", "x,y\n", "PATH: no data rows"},
		{"comments only", "a.txt", "# nothing\n", "PATH: no data rows"},
		{"ragged row", "a.csv", "1,2,3\n4,5,6\n\n7,8\n", "PATH: line 4 (row 3): want 3 fields (as in row 1 on line 1), found 2"},
		{"long row", "a.csv", "1,2\n3,4,5\n", "PATH: line 2 (row 2): want 2 fields (as in row 1 on line 1), found 3"},
		{"row unlike header", "a.csv", "x,y,z\n1,2\n", "PATH: line 2 (row 1): want 3 fields (as in the header on line 1), found 2"},
		{"ragged tsv", "a.tsv", "1\t2\t3\n4\t\t6\n7\t8\n", "PATH: line 2 (row 2), column 2: not a number: \"\""},
		{"ragged txt", "a.txt", "1 2 3\n4 5\n", "PATH: line 2 (row 2): want 3 fields (as in row 1 on line 1), found 2"},
		{"bad number", "a.csv", "1,2\n3,abc\n", `PATH: line 2 (row 2), column 2: not a number: "abc"`},
		{"bad number after header", "a.csv", "x,y\n\n1,2\n3,1.2.3\n", `PATH: line 4 (row 2), column 2: not a number: "1.2.3"`},
		{"empty field", "a.csv", "1,2\n3,\n", `PATH: line 2 (row 2), column 2: not a number: ""`},
		{"long text is cut", "a.csv", "1,2\n3," + long + "\n", `PATH: line 2 (row 2), column 2: not a number: "` + long[:40] + `"...`},
		{"mixed first row", "a.csv", "1,x\n3,4\n", `PATH: line 1 (row 1), column 2: not a number: "x" (the first row is not a header because some of its fields are numbers)`},
		{"pandas index header", "a.csv", ",0,1\n0,0.5,0.25\n", `PATH: line 1 (row 1), column 1: not a number: "" (the first row is not a header`},
		{"out of range", "a.csv", "1,1e400\n", `PATH: line 1 (row 1), column 2: "1e400": out of range for float64`},
		{"csv syntax", "a.csv", "1,2\n3,4\"5\n", `PATH: line 2 (row 2), byte 4: bare " in non-quoted-field`},
		{"csv quote across lines", "a.csv", "1,2\n3,\"4\n5\n", `PATH: line 3 (row 2), byte 3: extraneous or missing " in quoted-field (the row starts on line 2)`},
		{"tsv ragged after header", "a.tsv", "a\tb\n# c\n\n1\t2\t3\n", "PATH: line 4 (row 1): want 2 fields (as in the header on line 1), found 3"},
		{"txt bad number", "a.txt", "# c\n1 2\n\n3 x\n", `PATH: line 4 (row 2), column 2: not a number: "x"`},
		{"unknown extension", "a.dat", "1,2\n", `PATH: unsupported extension ".dat" (want .npy, .csv, .tsv, .txt, .arff or IDX (a name ending in ubyte or .idx, optionally .gz))`},
		{"no extension", "data", "1,2\n", `PATH: no file extension`},
		{"npy 3-D", "a.npy", "", "PATH: want a 1-D or 2-D array, found 3-D shape (1, 2, 1)"},
		{"npy 0-D", "a.npy", "", "PATH: want a 1-D or 2-D array, found 0-D shape ()"},
		{"npy empty", "a.npy", "", "PATH: no data: the array has shape (0, 3)"},
		{"npy corrupt", "a.npy", "PK\x03\x04 a zip file", `read PATH: npy: bad magic`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var path string
			switch tc.name {
			case "npy 3-D":
				path = writeNPY(t, tc.file, []int{1, 2, 1}, []float64{1, 2})
			case "npy 0-D":
				path = writeNPY(t, tc.file, nil, []float64{1})
			case "npy empty":
				path = writeNPY(t, tc.file, []int{0, 3}, nil)
			default:
				path = writeFile(t, tc.file, tc.content)
			}
			want := strings.ReplaceAll(tc.want, "PATH", path)
			m, err := dataio.ReadMatrix(path)
			if err == nil {
				t.Fatalf("no error, read %+v; want %q", m, want)
			}
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error\n%q\nwant it to start with\n%q", err, want)
			}
		})
	}
	missing := filepath.Join(t.TempDir(), "missing.csv")
	if _, err := dataio.ReadMatrix(missing); err == nil || !strings.HasPrefix(err.Error(), missing+": ") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v, want it to start with %q and wrap os.ErrNotExist", err, missing+": ")
	}
}

func TestReadVector(t *testing.T) {
	for _, tc := range []struct {
		name, file, content string
		shape               []int // for .npy
		want                []float64
		err                 string
	}{
		{"csv row", "v.csv", "1,2,3\n", nil, []float64{1, 2, 3}, ""},
		{"csv column with header", "v.csv", "w\n1\n2\n3\n", nil, []float64{1, 2, 3}, ""},
		{"csv matrix", "v.csv", "1,2\n3,4\n", nil, nil, "PATH: want a vector (a single row or column), found 2 rows and 2 columns"},
		{"npy 1-D", "v.npy", "", []int{3}, []float64{1, 2, 3}, ""},
		{"npy column", "v.npy", "", []int{3, 1}, []float64{1, 2, 3}, ""},
		{"npy row", "v.npy", "", []int{1, 3}, []float64{1, 2, 3}, ""},
		{"npy matrix", "v.npy", "", []int{2, 2}, nil, "PATH: want a vector (a single row or column), found 2 rows and 2 columns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var path string
			if tc.shape != nil {
				n := 1
				for _, d := range tc.shape {
					n *= d
				}
				data := make([]float64, n)
				for i := range data {
					data[i] = float64(i + 1)
				}
				path = writeNPY(t, tc.file, tc.shape, data)
			} else {
				path = writeFile(t, tc.file, tc.content)
			}
			v, err := dataio.ReadVector(path)
			if tc.err != "" {
				want := strings.ReplaceAll(tc.err, "PATH", path)
				if err == nil || err.Error() != want {
					t.Errorf("error %v, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(v, tc.want) {
				t.Errorf("read %v, want %v", v, tc.want)
			}
		})
	}
}

func TestReadMask(t *testing.T) {
	npyBool := func(t *testing.T, b []bool) string {
		var buf bytes.Buffer
		if err := npy.WriteBool(&buf, []int{len(b)}, b); err != nil {
			t.Fatal(err)
		}
		return writeFile(t, "m.npy", buf.String())
	}
	for _, tc := range []struct {
		name string
		path func(t *testing.T) string
		d    int
		want []bool
		err  string
	}{
		{"csv 0/1", func(t *testing.T) string { return writeFile(t, "m.csv", "1,0,1\n") }, 3, []bool{true, false, true}, ""},
		{"csv true/false column", func(t *testing.T) string { return writeFile(t, "m.csv", "mask\ntrue\nFALSE\nTrue\n") }, 3, []bool{true, false, true}, ""},
		{"csv nonzero numbers", func(t *testing.T) string { return writeFile(t, "m.csv", "2,0,-0.5,0.0\n") }, 4, []bool{true, false, true, false}, ""},
		{"txt", func(t *testing.T) string { return writeFile(t, "m.txt", "0 1 true false\n") }, 4, []bool{false, true, true, false}, ""},
		{"npy bool", func(t *testing.T) string { return npyBool(t, []bool{false, true}) }, 2, []bool{false, true}, ""},
		{"npy numbers", func(t *testing.T) string { return writeNPY(t, "m.npy", []int{3}, []float64{0, 3, 1}) }, 3, []bool{false, true, true}, ""},
		{"wrong length", func(t *testing.T) string { return writeFile(t, "m.csv", "1,0,1\n") }, 4, nil, "mask PATH: want D=4, found 3 values (1×3)"},
		{"wrong length npy", func(t *testing.T) string { return npyBool(t, []bool{true}) }, 2, nil, "mask PATH: want D=2, found 1 value (1×1)"},
		{"bad value", func(t *testing.T) string { return writeFile(t, "m.csv", "1,0,yes\n") }, 3, nil, `PATH: line 1 (row 1), column 3: not a number: "yes" (the first row is not a header`},
		{"NaN", func(t *testing.T) string { return writeFile(t, "m.csv", "1,nan\n") }, 2, nil, "mask PATH: row 1, column 2: NaN is neither true nor false"},
		{"matrix", func(t *testing.T) string { return writeFile(t, "m.csv", "1,0\n0,1\n") }, 4, nil, "mask PATH: want a vector (a single row or column), found 2 rows and 2 columns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path(t)
			got, err := dataio.ReadMask(path, tc.d)
			if tc.err != "" {
				want := strings.ReplaceAll(tc.err, "PATH", path)
				if err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("error %v, want it to start with %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("read %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCheckFinite(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    dataio.Matrix
		want string
	}{
		{"finite", dataio.Matrix{Rows: 2, Cols: 2, Data: []float64{1, math.MaxFloat64, -math.MaxFloat64, 5e-324}}, ""},
		{"empty", dataio.Matrix{}, ""},
		{"NaN", dataio.Matrix{Rows: 3, Cols: 7, Data: func() []float64 {
			d := make([]float64, 21)
			d[2*7+6] = math.NaN()
			return d
		}()}, "p.csv: row 3, column 7: NaN"},
		{"+Inf first", dataio.Matrix{Rows: 2, Cols: 2, Data: []float64{1, math.Inf(1), math.NaN(), 0}}, "p.csv: row 1, column 2: +Inf"},
		{"-Inf", dataio.Matrix{Rows: 2, Cols: 2, Data: []float64{1, 2, math.Inf(-1), 0}}, "p.csv: row 2, column 1: -Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := dataio.CheckFinite("p.csv", &tc.m)
			if tc.want == "" {
				if err != nil {
					t.Errorf("error %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	// Rows are matrix rows, not file lines.
	path := writeFile(t, "q.csv", "# comment\nx,y\n1,2\n\n3,nan\n")
	m, err := dataio.ReadMatrix(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := dataio.CheckFinite(path, m); err == nil || err.Error() != path+": row 2, column 2: NaN" {
		t.Errorf("CheckFinite after ReadMatrix: %v, want %q", err, path+": row 2, column 2: NaN")
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		path string
		m    *dataio.Matrix
		want string
	}{
		{"nil matrix", "a.csv", nil, "write PATH: nil matrix"},
		{"size mismatch", "a.csv", &dataio.Matrix{Rows: 2, Cols: 2, Data: []float64{1, 2, 3}}, "write PATH: a 2×2 matrix does not match len(Data) = 3"},
		{"negative size", "a.npy", &dataio.Matrix{Rows: -1, Cols: 2}, "write PATH: negative size -1×2"},
		{"overflowing size", "a.npy", &dataio.Matrix{Rows: 1 << 40, Cols: 1 << 40, Data: []float64{1}}, "write PATH: a 1099511627776×1099511627776 matrix does not match len(Data) = 1"},
		{"unknown extension", "a.xlsx", &dataio.Matrix{Rows: 1, Cols: 1, Data: []float64{1}}, `write PATH: unsupported extension ".xlsx"`},
		{"missing directory", filepath.Join("no", "such", "a.csv"), &dataio.Matrix{Rows: 1, Cols: 1, Data: []float64{1}}, "write PATH: creating temporary file: no such file or directory"},
		{"missing directory npy", filepath.Join("no", "such", "a.npy"), &dataio.Matrix{Rows: 1, Cols: 1, Data: []float64{1}}, "write PATH: creating temporary file: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.path)
			want := strings.ReplaceAll(tc.want, "PATH", path)
			err := dataio.WriteMatrix(path, tc.m)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %v, want it to start with %q", err, want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("a failed write left %v behind", ents)
			}
		})
	}
}

// TestWriteKeepsOldFileOnError checks that a failed write leaves an
// existing file as it was.
func TestWriteKeepsOldFileOnError(t *testing.T) {
	path := writeFile(t, "a.csv", "1,2\n")
	err := dataio.WriteMatrix(path, &dataio.Matrix{Rows: 5, Cols: 5, Data: []float64{1}})
	if err == nil {
		t.Fatal("no error")
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "1,2\n" {
		t.Errorf("file now holds %q, %v; want the old contents", b, err)
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("directory holds %v, want only a.csv", ents)
	}
}

// TestReadMasks: one mask for every query or a row per query, and the
// shapes that are neither, named in the error.
func TestReadMasks(t *testing.T) {
	for _, c := range []struct {
		name, text string
		d, b       int
		want       []bool
		err        string
	}{
		{"shared.csv", "1,0,1\n", 3, 2, []bool{true, false, true}, ""},
		{"column.csv", "1\n0\n1\n", 3, 2, []bool{true, false, true}, ""},
		{"rows.csv", "1,0,0\n0,true,0\n", 3, 2, []bool{true, false, false, false, true, false}, ""},
		{"one.csv", "0,1,0\n", 3, 1, []bool{false, true, false}, ""},
		{"three.csv", "1,0,0\n0,1,0\n0,0,1\n", 3, 2, nil, "want D=3 values (one mask for every query) or B×D = 2×3 (a row per query), found 3×3"},
		{"wide.csv", "1,0,0,1\n0,1,0,1\n", 3, 2, nil, "found 2×4"},
		{"nan.csv", "1,0,0\n0,nan,0\n", 3, 2, nil, "row 2, column 2: NaN"},
	} {
		p := writeFile(t, c.name, c.text)
		got, err := dataio.ReadMasks(p, c.d, c.b)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s: error %v, want one naming the file and saying %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
