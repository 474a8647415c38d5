package dataio

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{"huge-ubyte", "more than", idxFile(0x08, []uint32{1 << 20, 1 << 20}, []byte{1})},
		{"short-ubyte", "truncated: the IDX header declares 2×3 unsigned byte values (6 bytes), the data ends after 4 values (row 2)", idxFile(0x08, []uint32{2, 3}, []byte{1, 2, 3, 4})},
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
