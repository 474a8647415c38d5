package dataio

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/internal/fuzzbudget"
	"github.com/drdam/drdam/npy"
)

// readAll reads every row of rs, chunk rows at a time.
func readAll(t *testing.T, rs *Rows, chunk int) []float64 {
	t.Helper()
	var out []float64
	buf := make([]float64, chunk*rs.Cols())
	for {
		k, err := rs.Read(buf)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			t.Fatal("Read returned no rows and no error")
		}
		out = append(out, buf[:k*rs.Cols()]...)
	}
}

// bitsEqual reports whether a and b hold the same values bit for bit.
func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// rowsFiles writes one small matrix file of every format into dir and
// returns their paths.
func rowsFiles(t testing.TB, dir string) []string {
	t.Helper()
	files := map[string][]byte{
		"a.csv":           []byte("x,y,z\n1,2,3\n# comment\n4,5,6.5\n\n7,8,9\n-1,-2,-3\n"),
		"b.tsv":           []byte("1\t2\t3\n4\t5\t6\n"),
		"c.txt":           []byte("1 2 3\n4   5 6\n7 8 9e-3\n"),
		"d.arff":          []byte("@relation r\n@attribute a numeric\n@attribute c {p,q}\n@attribute b numeric\n@attribute s string\n@attribute e real\n@data\n1,p,2,'x',3\n{0 4, 2 5, 4 6}\n% comment\n7,q,8,y,9\n"),
		"e-idx3-ubyte":    idxFile(0x08, []uint32{4, 3}, []byte{0, 1, 2, 3, 4, 5, 250, 251, 252, 253, 254, 255}),
		"f-idx3-ubyte.gz": gz(t, idxFile(0x08, []uint32{2, 1, 3}, []byte{9, 8, 7, 6, 5, 4})),
		"g.idx":           idxFile(0x0D, []uint32{2, 3}, []byte{0x3f, 0x80, 0, 0, 0x40, 0, 0, 0, 0xc0, 0x40, 0, 0, 0, 0, 0, 0, 0x3f, 0, 0, 0, 0x42, 0xc8, 0, 0}),
	}
	var paths []string
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, name := range []string{"f4_2d.npy", "f8_2d.npy", "fortran_f8.npy", "be_i4_2d.npy", "f2_1d.npy", "i8_1d.npy"} {
		b, err := os.ReadFile(filepath.Join("..", "npy", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// TestRowsMatchReadMatrix reads a file of every format by rows, in chunks
// of 1, 2, 3 and 1000 rows, from the file (OpenRows) and from a stream
// (NewRows): the rows are ReadMatrix's, bit for bit.
func TestRowsMatchReadMatrix(t *testing.T) {
	for _, path := range rowsFiles(t, t.TempDir()) {
		want, err := ReadMatrix(path)
		if err != nil {
			t.Fatalf("ReadMatrix: %v", err)
		}
		for _, chunk := range []int{1, 2, 3, 1000} {
			rs, err := OpenRows(path)
			if err != nil {
				t.Fatalf("OpenRows: %v", err)
			}
			got := readAll(t, rs, chunk)
			rs.Close()
			if rs.Cols() != want.Cols || !bitsEqual(got, want.Data) || rs.Total() != int64(want.Rows) {
				t.Errorf("%s, chunk %d: %d rows of %d: %v; ReadMatrix: %d×%d %v", filepath.Base(path), chunk, rs.Total(), rs.Cols(), got, want.Rows, want.Cols, want.Data)
			}
			if done, all := rs.Progress(); done != all || all <= 0 {
				t.Errorf("%s: Progress() = %d, %d after the last row; want the file's size twice", filepath.Base(path), done, all)
			}
			if strings.Contains(path, "fortran") {
				continue // a stream cannot be read by columns
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			rs, err = NewRows(struct{ io.Reader }{f}, path)
			if err != nil {
				t.Fatalf("NewRows: %v", err)
			}
			if got := readAll(t, rs, chunk); !bitsEqual(got, want.Data) {
				t.Errorf("%s from a stream, chunk %d: %v, want %v", filepath.Base(path), chunk, got, want.Data)
			}
			f.Close()
		}
	}
}

// TestRowsShards reads a folder and a glob of shards of three columns in
// mixed formats: their rows one after another, in the order of the
// files' names, and errors that name the shard and its row.
func TestRowsShards(t *testing.T) {
	dir := t.TempDir()
	var want []float64
	for _, p := range rowsFiles(t, dir) {
		m, err := ReadMatrix(p)
		if err != nil {
			t.Fatal(err)
		}
		if m.Cols != 3 {
			os.Remove(p)
			continue
		}
		want = append(want, m.Data...)
	}
	if err := os.WriteFile(filepath.Join(dir, ".hidden.csv"), []byte("not,a,shard\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "_SUCCESS"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pattern := range []string{dir, filepath.Join(dir, "[a-z]*")} {
		rs, err := OpenRows(pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, rs, 2); !bitsEqual(got, want) {
			t.Errorf("%s: %v, want %v", pattern, got, want)
		}
	}

	bad := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(bad, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("1.csv", "1,2\n3,4\n")
	write("2.csv", "5,6\n7,inf\n")
	write("3.csv", "1,2,3\n")
	rs, err := OpenRows(filepath.Join(bad, "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float64, 4)
	var errs []string
	for {
		k, err := rs.Read(buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, err.Error())
			break
		}
		if err := rs.CheckFinite(buf[:2*k]); err != nil {
			errs = append(errs, err.Error())
		}
	}
	wantErrs := []string{
		filepath.Join(bad, "2.csv") + ": row 2, column 2: +Inf",
		filepath.Join(bad, "3.csv") + ": rows of 3 values, but those of " + filepath.Join(bad, "2.csv") + " before it have 2: the shards of one matrix have the same number of columns",
	}
	if !slices.Equal(errs, wantErrs) {
		t.Errorf("errors\n%q\nwant\n%q", errs, wantErrs)
	}

	for _, tc := range []struct{ pattern, want string }{
		{filepath.Join(bad, "*.json"), "no file matches"},
		{t.TempDir(), "a folder with no files"},
		{filepath.Join(bad, "missing.csv"), "missing.csv: no such file"},
		{write("empty.npy", string(npyBytes(t, []int{0, 3}, nil))), "no data: the array has shape (0, 3)"},
		{write("short.npy", string(npyBytes(t, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}))[:150]), "short.npy: npy: truncated: header says 6 elements (48 bytes), found only 22 bytes: the data stops in row 1 of 2"},
		{write("x.bin", "1"), `unsupported extension ".bin"`},
		{write("h.csv", "a,b\n"), "h.csv: no data rows"},
	} {
		rs, err := OpenRows(tc.pattern)
		if err == nil {
			_, err = rs.Read(make([]float64, 30))
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.pattern, err, tc.want)
		}
	}
}

// npyBytes returns the .npy file of an array.
func npyBytes(t *testing.T, shape []int, data []float64) []byte {
	t.Helper()
	var b strings.Builder
	if err := npy.Write(&b, shape, data); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

// FuzzRows checks that reading by rows agrees with reading whole: for any
// bytes in any format, when ReadMatrix's decoder returns a matrix, Rows
// returns its rows bit for bit (in chunks of 1 and 3 rows); when Rows
// reads every row, the decoder succeeds too, unless the file passes the
// decoder's MaxValues; and neither panics. A buffer of a chunk of rows is
// allocated by the width that Rows reports, as drdam encode does: a width
// that the input does not back (a header's claim) is a failure.
func FuzzRows(f *testing.F) {
	names := []string{"f.csv", "f.tsv", "f.txt", "f.arff", "f-ubyte", "f.npy"}
	dir := f.TempDir()
	paths := rowsFiles(f, dir)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for k := range names {
			f.Add(b, uint8(k))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		data = data[:min(len(data), maxFuzzInput)]
		name := names[int(k)%len(names)]
		fm, _ := formatOf(name, false)
		whole, werr := decodeMatrix(bytes.NewReader(data), name, fm, parseNumber)
		for _, chunk := range []int{1, 3} {
			rs, err := NewRows(bytes.NewReader(data), name)
			var got []float64
			if err == nil {
				buf := make([]float64, chunk*rs.Cols())
				for {
					n, rerr := rs.Read(buf)
					if rerr == io.EOF {
						break
					}
					if rerr != nil {
						err = rerr
						break
					}
					got = append(got, buf[:n*rs.Cols()]...)
				}
			}
			switch {
			case werr == nil && err != nil:
				t.Fatalf("%s: ReadMatrix reads %d×%d, Rows fails: %v", name, whole.Rows, whole.Cols, err)
			case werr == nil && (!bitsEqualNaN(got, whole.Data) || rs.Cols() != whole.Cols):
				t.Fatalf("%s: Rows reads %v, ReadMatrix %v", name, got, whole.Data)
			case werr != nil && err == nil && !strings.Contains(werr.Error(), "MaxValues") && !strings.Contains(werr.Error(), "values this reader holds"):
				t.Fatalf("%s: Rows reads %d values, ReadMatrix fails: %v", name, len(got), werr)
			}
		}
	})
}

// bitsEqualNaN is bitsEqual with any NaN equal to any NaN.
func bitsEqualNaN(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
	})
}

// TestRowsStreamWidth: a .npy stream (which cannot tell its size, so that
// npy.NewReader cannot check the data against the header) whose header
// declares rows far wider than its data is an error from NewRows, after
// reading ahead what arrived, not a width of 2^28 that the caller would
// size its buffers by (NewRows returned it). A row that does arrive is
// read as from the file.
func TestRowsStreamWidth(t *testing.T) {
	// A version 1.0 header, padded to 64 bytes with its newline.
	dict := "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 268435456), }"
	dict += strings.Repeat(" ", 64-(10+len(dict)+1)%64) + "\n"
	in := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)), byte(len(dict)>>8))
	in = append(append(in, dict...), make([]byte, 100)...)
	var err error
	alloc := fuzzbudget.Allocated(func() {
		_, _, err = readRows(struct{ io.Reader }{bytes.NewReader(in)}, "wide.npy")
	})
	const want = "read wide.npy: npy: truncated: header says 536870912 elements (4294967296 bytes), found only 100 bytes: the data stops in row 1 of 2"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if alloc > 1<<20 { // a 64 KiB read-ahead and the header
		t.Errorf("allocated %d bytes, want under 1 MiB", alloc)
	}
	b := npyBytes(t, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6})
	rs, err := NewRows(struct{ io.Reader }{bytes.NewReader(b)}, "ok.npy")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, rs, 1); !bitsEqual(got, []float64{1, 2, 3, 4, 5, 6}) {
		t.Errorf("read %v", got)
	}
}
