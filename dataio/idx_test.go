package dataio

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drdam/drdam/internal/fuzzbudget"
)

// idxFile returns the bytes of an IDX file of type typ, shape dims and
// the raw big-endian values.
func idxFile(typ byte, dims []uint32, values []byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, typ, byte(len(dims))})
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, d)
	}
	b.Write(values)
	return b.Bytes()
}

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestReadIDX reads MNIST-shaped files (3 images of 2×3 unsigned bytes)
// plain and compressed, under MNIST's names, and every value type: the
// images become rows of 6 values v/255/√6, the other types their values
// exactly.
func TestReadIDX(t *testing.T) {
	dir := t.TempDir()
	pix := []byte{0, 1, 2, 3, 4, 5, 10, 20, 30, 40, 50, 60, 255, 254, 253, 128, 127, 126}
	images := idxFile(0x08, []uint32{3, 2, 3}, pix)
	var want []float64
	for _, p := range pix {
		want = append(want, 1/(255*math.Sqrt(6))*float64(p))
	}
	f32 := make([]byte, 8)
	binary.BigEndian.PutUint32(f32, math.Float32bits(1.5))
	binary.BigEndian.PutUint32(f32[4:], math.Float32bits(-2.25))
	f64 := make([]byte, 8)
	binary.BigEndian.PutUint64(f64, math.Float64bits(math.Pi))
	for _, c := range []struct {
		name   string
		data   []byte
		rows   int
		cols   int
		values []float64
	}{
		{"train-images-idx3-ubyte", images, 3, 6, want},
		{"train-images.idx3-ubyte", images, 3, 6, want},
		{"t10k-images-idx3-ubyte.gz", gz(t, images), 3, 6, want},
		{"labels.idx", idxFile(0x08, []uint32{4}, []byte{0, 255, 51, 102}), 1, 4, []float64{0, 1 / (255 * 2.0) * 255, 1 / (255 * 2.0) * 51, 1 / (255 * 2.0) * 102}},
		{"a.idx", idxFile(0x09, []uint32{2, 1}, []byte{0xff, 0x7f}), 2, 1, []float64{-1, 127}},
		{"b.idx", idxFile(0x0B, []uint32{1, 2}, []byte{0xff, 0xfe, 0x01, 0x00}), 1, 2, []float64{-2, 256}},
		{"c.idx.gz", gz(t, idxFile(0x0C, []uint32{1, 1}, []byte{0xff, 0xff, 0xff, 0xfd})), 1, 1, []float64{-3}},
		{"d.idx", idxFile(0x0D, []uint32{2, 1}, f32), 2, 1, []float64{1.5, -2.25}},
		{"e.idx", idxFile(0x0E, []uint32{1, 1, 1}, f64), 1, 1, []float64{math.Pi}},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadMatrix(p)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if m.Rows != c.rows || m.Cols != c.cols || len(m.Data) != len(c.values) {
			t.Errorf("%s: %d×%d with %d values, want %d×%d", c.name, m.Rows, m.Cols, len(m.Data), c.rows, c.cols)
			continue
		}
		for i, v := range c.values {
			if m.Data[i] != v {
				t.Errorf("%s: value %d = %v, want %v", c.name, i, m.Data[i], v)
			}
		}
		if n, ok, err := DeclaredValues(p); err != nil || !ok || n != int64(len(c.values)) {
			t.Errorf("%s: DeclaredValues = %d, %v, %v; want %d", c.name, n, ok, err, len(c.values))
		}
	}
	if _, ok, _ := DeclaredValues("x.npy"); ok {
		t.Error("DeclaredValues of a .npy name: ok")
	}
}

// TestReadIDXErrors: every malformed file is an error naming the file and
// what is wrong, never a panic or an allocation of what the header
// declares.
func TestReadIDXErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"empty-ubyte", "not an IDX file: 0 bytes", nil},
		{"magic-ubyte", "magic number starts with 0x0102", []byte{1, 2, 8, 1, 0, 0, 0, 1, 0}},
		{"type-ubyte", "unknown IDX value type 0x07", []byte{0, 0, 7, 1, 0, 0, 0, 1, 0}},
		{"nodims-ubyte", "declares 0 dimensions", []byte{0, 0, 8, 0}},
		{"shorthdr-ubyte", "truncated IDX header", []byte{0, 0, 8, 2, 0, 0, 0, 1}},
		{"zero-ubyte", "no data: the IDX header declares shape 0×3", idxFile(0x08, []uint32{0, 3}, nil)},
		{"huge-ubyte", "truncated: the IDX header declares 1048576×1048576 unsigned byte values (1099511627776 bytes), found only 1 bytes after its 12-byte header", idxFile(0x08, []uint32{1 << 20, 1 << 20}, []byte{1})},
		{"short-ubyte", "truncated: the IDX header declares 2×3 unsigned byte values (6 bytes), found only 4 bytes after its 12-byte header: the data ends after 4 values (row 2)", idxFile(0x08, []uint32{2, 3}, []byte{1, 2, 3, 4})},
		{"huge-ubyte.gz", "truncated: the IDX header declares 1048576×1048576 unsigned byte values (1099511627776 bytes), more than a gzip file of", gz(t, idxFile(0x08, []uint32{1 << 20, 1 << 20}, []byte{1}))},
		{"long-ubyte", "more bytes than the IDX header declares", idxFile(0x08, []uint32{1, 2}, []byte{1, 2, 3})},
		{"short.idx", "the data ends after 1 values (row 1)", idxFile(0x0E, []uint32{1, 2}, make([]byte, 12))},
		{"bad-ubyte.gz", "not a gzip file", []byte{0, 0, 8, 1, 0, 0, 0, 1, 5}},
		{"cut-ubyte.gz", "truncated", gz(t, idxFile(0x08, []uint32{3, 3}, []byte{1, 2}))},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadMatrix(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming the file and saying %q", c.name, err, c.want)
		}
	}
	if _, err := ReadMatrix(filepath.Join(dir, "missing-ubyte")); err == nil || !strings.Contains(err.Error(), "missing-ubyte") {
		t.Errorf("a missing file: %v", err)
	}
	if err := WriteMatrix(filepath.Join(dir, "out-ubyte"), &Matrix{Rows: 1, Cols: 1, Data: []float64{1}}); err == nil || !strings.Contains(err.Error(), "writing IDX files is not supported") {
		t.Errorf("writing IDX: %v", err)
	}
}

// TestIDXClaims: IDX headers that declare far more than their file holds
// (8 to 16 bytes declaring rows of 2^28 values, the inputs with which
// FuzzReadIDX found that the reader allocated by the header, and .gz
// files whose size or data cannot hold their header's rows) are errors
// naming the file, what its header declares and what was found, read
// whole or by rows, from a file or a stream, after allocating under 2 MiB
// each (ReadMatrix allocated 25 MB to 2 GiB sized by the header before
// the data was checked; OpenRows and NewRows returned a width of up to
// 2^28 that the data did not back).
func TestIDXClaims(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 1<<14) // incompressible: 16 KiB of .gz may declare up to 16 MiB
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	for _, c := range []struct {
		name     string
		declares string // what every error says
		file     string // and what it says when read from the file
		stream   string // and from a stream
		data     []byte
	}{
		{"h8-ubyte", "268435456 unsigned byte values (268435456 bytes)", "found only 0 bytes after its 8-byte header: the data ends after 0 values (row 1)", "the data ends after 0 values (row 1)", idxFile(0x08, []uint32{1 << 28}, nil)},
		{"h16-ubyte", "2×16384×16384 unsigned byte values (536870912 bytes)", "found only 0 bytes after its 16-byte header", "the data ends after 0 values (row 1)", idxFile(0x08, []uint32{2, 1 << 14, 1 << 14}, nil)},
		{"h12-ubyte", "2×268435456 unsigned byte values (536870912 bytes)", "found only 0 bytes after its 12-byte header", "the data ends after 0 values (row 1)", idxFile(0x08, []uint32{2, 1 << 28}, nil)},
		// The four inputs with which FuzzReadIDX failed (testdata/fuzz).
		{"f1-ubyte", "48×3158064 short values (303174144 bytes)", "found only 0 bytes", "the data ends after 0 values", []byte("\x00\x00\v\x02\x00\x00\x000\x00000")},
		{"f2-ubyte", "87044144 float values (348176576 bytes)", "found only 0 bytes", "the data ends after 0 values", []byte("\x00\x00\r\x01\x05000")},
		{"f3-ubyte", "2×12336×8240 unsigned byte values", "found only 0 bytes", "the data ends after 0 values", []byte("\x00\x00\b\x03\x00\x00\x00\x02\x00\x0000\x00\x00 0")},
		{"f4-ubyte", "48×2109488×2 unsigned byte values", "found only 0 bytes", "the data ends after 0 values", []byte("\x00\x00\b\x03\x00\x00\x000\x00 00\x00\x00\x00\x02")},
		{"h8-ubyte.gz", "268435456 unsigned byte values (268435456 bytes)", "more than a gzip file of", "the data ends after 0 values (row 1)", gz(t, idxFile(0x08, []uint32{1 << 28}, nil))},
		{"noise-ubyte.gz", "1×16777216 unsigned byte values (16777216 bytes)", "the data ends after 16384 values (row 1)", "the data ends after 16384 values (row 1)", gz(t, idxFile(0x08, []uint32{1, 1 << 24}, noise))},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, how := range []string{"ReadMatrix", "OpenRows", "NewRows of a stream"} {
			var err error
			want := c.file
			alloc := fuzzbudget.Allocated(func() {
				switch how {
				case "ReadMatrix":
					_, err = ReadMatrix(p)
				case "OpenRows":
					var rs *Rows
					if rs, err = OpenRows(p); err == nil {
						_, err = rs.Read(make([]float64, rs.Cols()))
						rs.Close()
					}
				default:
					want = c.stream
					_, _, err = readRows(struct{ io.Reader }{bytes.NewReader(c.data)}, p)
				}
			})
			if err == nil || !strings.HasPrefix(err.Error(), p+": truncated: the IDX header declares "+c.declares) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: error %v, want %q, the declared %q and %q", how, c.name, err, p+": truncated: ", c.declares, want)
			}
			// 2 MiB: the 64 Ki-value chunks of raw and decoded values,
			// the first 64 KiB of a read-ahead, gzip's state.
			if alloc > 2<<20 {
				t.Errorf("%s %s: allocated %d bytes, want under 2 MiB", how, c.name, alloc)
			}
		}
	}
}

// TestIDXMaxValues: a file that holds more values than MaxValues is
// refused by ReadMatrix before they are read (OpenRows reads it).
func TestIDXMaxValues(t *testing.T) {
	defer SetMaxValues(5)()
	p := filepath.Join(t.TempDir(), "six-ubyte")
	if err := os.WriteFile(p, idxFile(0x08, []uint32{3, 2}, make([]byte, 6)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMatrix(p); err == nil || !strings.Contains(err.Error(), "declares shape 3×2, more than the 5 values this reader holds in memory") {
		t.Errorf("ReadMatrix: %v", err)
	}
	rs, err := OpenRows(p)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	if got := readAll(t, rs, 2); len(got) != 6 {
		t.Errorf("OpenRows read %d values, want 6", len(got))
	}
}

// TestIDXReadThrough: a compressed file whose values are all there is
// read through once before the matrix is allocated, at its exact size
// (not grown by doubling, which would take up to 1.5 times as much at
// once), and OpenRows reads through its first row in a fixed buffer
// before reporting the width, then reads it again (Progress counts it
// once); a stream that cannot seek has its first row read ahead, up to
// maxAhead, beyond which it is refused.
func TestIDXReadThrough(t *testing.T) {
	dir := t.TempDir()
	const n = 1 << 20
	p := filepath.Join(dir, "zeros-ubyte.gz")
	raw := idxFile(0x08, []uint32{2, n / 2}, make([]byte, n))
	if err := os.WriteFile(p, gz(t, raw), 0o644); err != nil {
		t.Fatal(err)
	}
	var m *Matrix
	var err error
	alloc := fuzzbudget.Allocated(func() { m, err = ReadMatrix(p) })
	if err != nil || m.Rows != 2 || m.Cols != n/2 {
		t.Fatalf("ReadMatrix: %v, %v", m, err)
	}
	// 8 MiB of matrix, 1 MiB for chunks and gzip's state.
	if alloc > 9<<20 {
		t.Errorf("ReadMatrix allocated %d bytes, want the 8 MiB matrix and under 1 MiB more", alloc)
	}
	var rs *Rows
	alloc = fuzzbudget.Allocated(func() { rs, err = OpenRows(p) })
	if err != nil {
		t.Fatal(err)
	}
	if alloc > 512<<10 {
		t.Errorf("OpenRows allocated %d bytes, want under 512 KiB (a row of %d bytes is read through, not kept)", alloc, n/2)
	}
	if got := readAll(t, rs, 1); len(got) != n || rs.Total() != 2 {
		t.Errorf("OpenRows read %d values in %d rows", len(got), rs.Total())
	}
	if done, all := rs.Progress(); done != all {
		t.Errorf("Progress() = %d, %d: the first row counted twice?", done, all)
	}
	rs.Close()
	// A stream: read ahead, and refused past maxAhead.
	for _, c := range []struct {
		ahead int64
		want  string
	}{
		{1 << 20, ""},
		{1 << 10, "zeros-ubyte.gz: the IDX header declares 2×524288 unsigned byte values (1048576 bytes): rows of 524288 bytes, more than the 1024 that are read ahead of a stream"},
	} {
		restore := SetMaxAhead(c.ahead)
		rows, cols, err := readRows(struct{ io.Reader }{bytes.NewReader(gz(t, raw))}, p)
		restore()
		if c.want == "" && (err != nil || rows != 2 || cols != n/2) {
			t.Errorf("a stream, read ahead %d: %d×%d, %v", c.ahead, rows, cols, err)
		}
		if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("a stream, read ahead %d: %v, want %q", c.ahead, err, c.want)
		}
	}
}
