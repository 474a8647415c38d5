package dataio

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// put writes content to name in a new temporary directory and returns
// its path.
func put(t *testing.T, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRowsMissing: OpenRowsMissing reads empty fields and NaN/nan of
// CSV/TSV, ? of ARFF and .npy NaN as NaN; OpenRows still refuses an empty
// field, and Inf is read as Inf (CheckFinite refuses it, and passes NaN).
func TestRowsMissing(t *testing.T) {
	nan := math.NaN()
	want := []float64{1, nan, 3, nan, nan, 6}
	cases := map[string]string{
		"q.csv":  "a,b,c\n1,,3\nNaN, nan ,6\n",
		"q.tsv":  "1\t\t3\n\tNaN\t6\n",
		"q.arff": "@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute c numeric\n@data\n1,?,3\n?,?,6\n",
	}
	for name, text := range cases {
		path := put(t, name, []byte(text))
		rs, err := OpenRowsMissing(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := readAll(t, rs, 1); !bitsEqualNaN(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
		rs.Close()
		if name != "q.arff" {
			if rs, err := OpenRows(path); err == nil {
				if _, err := rs.Read(make([]float64, 6)); err == nil || !strings.Contains(err.Error(), "column 2") {
					t.Errorf("%s: OpenRows: %v, want an error at column 2", name, err)
				}
				rs.Close()
			}
		}
	}
	path := put(t, "q.npy", npyBytes(t, []int{2, 3}, want))
	rs, err := OpenRowsMissing(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, rs, 2); !bitsEqualNaN(got, want) {
		t.Errorf("npy: %v", got)
	}
	rs.Close()
	rs, err = OpenRowsMissing(put(t, "inf.csv", []byte("1,Inf,3\n")))
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, rs, 1); !math.IsInf(got[1], 1) {
		t.Errorf("inf: %v", got)
	}
	rs.Close()

	// CheckFinite of rows with missing entries passes NaN and names Inf.
	rs, err = OpenRowsMissing(put(t, "mixed.csv", []byte("1,,3\n4,5,-Inf\n")))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float64, 6)
	if n, err := rs.Read(buf); err != nil || n != 2 {
		t.Fatalf("mixed.csv: %d rows, %v", n, err)
	}
	if err := rs.CheckFinite(buf[:3]); err != nil {
		t.Errorf("a NaN of rows with missing entries: %v", err)
	}
	if err := rs.CheckFinite(buf); err == nil || !strings.Contains(err.Error(), "mixed.csv: row 2, column 3: -Inf: a missing entry is NaN") {
		t.Errorf("an Inf of rows with missing entries: %v", err)
	}
	rs.Close()
}

// TestStreamWriter: a matrix and a vector written a chunk at a time are
// the bytes that WriteMatrix and WriteVector write, in every format; a
// .npy writer needs its rows, and refuses fewer or more values.
func TestStreamWriter(t *testing.T) {
	dir := t.TempDir()
	m := &Matrix{Rows: 3, Cols: 2, Data: []float64{1, 0.5, -2, 1e-300, math.Pi, 7}}
	for _, ext := range []string{".npy", ".csv", ".tsv", ".txt"} {
		for _, vector := range []bool{false, true} {
			path := filepath.Join(dir, "m"+ext)
			shape := []int{3, 2}
			err := WriteMatrix(path, m)
			if vector {
				shape = []int{6}
				err = WriteVector(path, m.Data)
			}
			if err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(path)
			if ext != ".npy" {
				shape[0] = -1 // text needs no count
			}
			var buf bytes.Buffer
			sw, err := NewStreamWriter(&buf, path, shape)
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range [][]float64{m.Data[:2], m.Data[2:6]} {
				if err := sw.Write(part); err != nil {
					t.Fatal(err)
				}
			}
			if err := sw.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s vector %v: %q, want %q", ext, vector, buf.Bytes(), want)
			}
		}
	}
	if _, err := NewStreamWriter(discard{}, "x.npy", []int{-1, 2}); err == nil {
		t.Error("a .npy writer without its rows")
	}
	sw, _ := NewStreamWriter(discard{}, "x.npy", []int{1, 2})
	if err := sw.Write([]float64{1, 2, 3, 4}); err == nil {
		t.Error("more values than declared")
	}
	sw, _ = NewStreamWriter(discard{}, "x.npy", []int{2, 2})
	sw.Write([]float64{1, 2})
	if err := sw.Close(); err == nil || !strings.Contains(err.Error(), "2 values written, 4 declared") {
		t.Errorf("fewer values: %v", err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
