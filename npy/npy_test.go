package npy_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drdam/drdam/internal/fuzzbudget"
	"github.com/drdam/drdam/npy"
)

// streamReader hides every method of r but Read, so that Read cannot learn
// the input size and must read in bounded chunks.
type streamReader struct{ r io.Reader }

func (s streamReader) Read(p []byte) (int, error) { return s.r.Read(p) }

// readers returns the ways the tests feed b to npy.Read: with a known size
// (a *bytes.Reader is an io.Seeker) and as a plain stream.
func readers(b []byte) map[string]func() io.Reader {
	return map[string]func() io.Reader{
		"seeker": func() io.Reader { return bytes.NewReader(b) },
		"stream": func() io.Reader { return streamReader{bytes.NewReader(b)} },
	}
}

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

// build returns a .npy file of the given version with the given header
// dict and data, padded as NumPy pads it to a multiple of 64 bytes.
func build(major byte, dict string, data []byte) []byte {
	return buildAligned(major, dict, data, 64)
}

func buildAligned(major byte, dict string, data []byte, align int) []byte {
	lenSize := 2
	if major >= 2 {
		lenSize = 4
	}
	pre := 8 + lenSize
	hlen := len(dict) + 1
	pad := (align - (pre+hlen)%align) % align
	hlen += pad
	var b []byte
	b = append(b, "\x93NUMPY"...)
	b = append(b, major, 0)
	if lenSize == 2 {
		b = binary.LittleEndian.AppendUint16(b, uint16(hlen))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(hlen))
	}
	b = append(b, dict...)
	b = append(b, strings.Repeat(" ", pad)...)
	b = append(b, '\n')
	return append(b, data...)
}

// encode encodes vals, fixed-size numbers, in the given byte order.
func encode(order binary.ByteOrder, vals ...any) []byte {
	var buf bytes.Buffer
	for _, v := range vals {
		if err := binary.Write(&buf, order, v); err != nil {
			panic(err)
		}
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	shapes := [][]int{{}, {0}, {3}, {2, 3}, {2, 3, 4}, {0, 5}, {1, 1, 1, 1}}
	// Values that float32 holds exactly, so every writer round-trips.
	f32vals := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i)*0.25 - 3
		}
		return v
	}
	// Values that only float64 holds exactly.
	f64vals := func(n int) []float64 {
		special := []float64{0.1, math.Copysign(0, -1), 1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.Pi}
		v := make([]float64, n)
		for i := range v {
			v[i] = special[i%len(special)] * float64(i/len(special)+1)
		}
		return v
	}
	type writer struct {
		name  string
		descr string
		write func(w io.Writer, shape []int, n int) ([]float64, error)
	}
	dir := t.TempDir()
	viaFile := func(f func(string, []int, []float64) error) func(io.Writer, []int, []float64) error {
		return func(w io.Writer, shape []int, data []float64) error {
			p := filepath.Join(dir, "a.npy")
			if err := f(p, shape, data); err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		}
	}
	floats := func(f func(io.Writer, []int, []float64) error, vals func(int) []float64) func(io.Writer, []int, int) ([]float64, error) {
		return func(w io.Writer, shape []int, n int) ([]float64, error) {
			v := vals(n)
			return v, f(w, shape, v)
		}
	}
	writers := []writer{
		{"Write", "<f8", floats(npy.Write, f64vals)},
		{"WriteFloat32", "<f4", floats(npy.WriteFloat32, f32vals)},
		{"WriteFile", "<f8", floats(viaFile(npy.WriteFile), f64vals)},
		{"WriteFileFloat32", "<f4", floats(viaFile(npy.WriteFileFloat32), f32vals)},
		{"WriteBool", "|b1", func(w io.Writer, shape []int, n int) ([]float64, error) {
			b := make([]bool, n)
			want := make([]float64, n)
			for i := range b {
				b[i] = i%3 != 1
				if b[i] {
					want[i] = 1
				}
			}
			return want, npy.WriteBool(w, shape, b)
		}},
	}
	for _, wr := range writers {
		for _, shape := range shapes {
			t.Run(fmt.Sprintf("%s%v", wr.name, shape), func(t *testing.T) {
				n := 1
				for _, d := range shape {
					n *= d
				}
				var buf bytes.Buffer
				want, err := wr.write(&buf, shape, n)
				if err != nil {
					t.Fatalf("write: %v", err)
				}
				a, err := npy.Read(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				if !slices.Equal(a.Shape, shape) || a.Shape == nil {
					t.Errorf("shape = %#v, want %#v", a.Shape, shape)
				}
				if a.Descr != wr.descr {
					t.Errorf("descr = %q, want %q", a.Descr, wr.descr)
				}
				if !sameFloats(a.Data, want) {
					t.Errorf("data = %v, want %v", a.Data, want)
				}
				h, err := npy.ReadHeader(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatalf("ReadHeader: %v", err)
				}
				if h.Major != 1 || h.Minor != 0 || h.DataOffset%64 != 0 || h.FortranOrder {
					t.Errorf("header = %+v, want version 1.0, C order, data offset a multiple of 64", h)
				}
			})
		}
	}
}

// fixtures are the files in testdata, written by NumPy 1.24 (see
// testdata/README.md), with the arrays they hold.
var fixtures = []struct {
	file  string
	major int
	descr string
	shape []int
	data  []float64
}{
	{"f8_2d.npy", 1, "<f8", []int{3, 4}, []float64{
		0.1, math.Copysign(0, -1), 1e-300, 1.5,
		math.Inf(1), math.Inf(-1), math.Float64frombits(0x7ff8000000000000), -2.25, // NumPy's NaN
		1e300, 3, 4, 5}},
	{"f4_2d.npy", 1, "<f4", []int{2, 3}, []float64{0.5, -1.25, 3, float64(float32(1e-3)), 65504, math.Copysign(0, -1)}},
	{"b1_1d.npy", 1, "|b1", []int{5}, []float64{1, 0, 1, 1, 0}},
	{"i8_1d.npy", 1, "<i8", []int{4}, []float64{-3, 0, 7, 1 << 53}},
	{"fortran_f8.npy", 1, "<f8", []int{2, 3}, []float64{0, 1, 2, 3, 4, 5}},
	{"be_i4_2d.npy", 1, ">i4", []int{3, 2}, []float64{-2, -1, 0, 1, 2, 3}},
	{"scalar_f8.npy", 1, "<f8", []int{}, []float64{3.5}},
	{"empty_f8.npy", 1, "<f8", []int{0}, []float64{}},
	{"u1_3d.npy", 1, "|u1", []int{2, 3, 4}, []float64{
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
		12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
	{"f2_1d.npy", 1, "<f2", []int{4}, []float64{1, -2.5, 65504, math.Ldexp(1, -24)}},
	{"v2_f8.npy", 2, "<f8", []int{2, 3}, []float64{0, 0.5, 1, 1.5, 2, 2.5}},
	{"v3_f4.npy", 3, "<f4", []int{4}, []float64{-1.5, -0.5, 0.5, 1.5}},
}

func TestReadNumpyFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.file, func(t *testing.T) {
			path := filepath.Join("testdata", f.file)
			a, err := npy.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Shape, f.shape) || a.Shape == nil {
				t.Errorf("shape = %#v, want %#v", a.Shape, f.shape)
			}
			if a.Descr != f.descr {
				t.Errorf("descr = %q, want %q", a.Descr, f.descr)
			}
			if !sameFloats(a.Data, f.data) {
				t.Errorf("data = %v, want %v", a.Data, f.data)
			}
			fh, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			h, err := npy.ReadHeader(fh)
			if err != nil {
				t.Fatal(err)
			}
			if h.Major != f.major || h.Minor != 0 {
				t.Errorf("version = %d.%d, want %d.0", h.Major, h.Minor, f.major)
			}
			if h.DataOffset%64 != 0 {
				t.Errorf("data offset = %d, want a multiple of 64", h.DataOffset)
			}
			if wantF := f.file == "fortran_f8.npy"; h.FortranOrder != wantF {
				t.Errorf("fortran order = %v, want %v", h.FortranOrder, wantF)
			}
			// Through a plain stream too.
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			a, err = npy.Read(streamReader{bytes.NewReader(b)})
			if err != nil {
				t.Fatalf("as a stream: %v", err)
			}
			if !sameFloats(a.Data, f.data) {
				t.Errorf("as a stream: data = %v, want %v", a.Data, f.data)
			}
		})
	}
}

// TestWriteMatchesNumpy checks that the writers produce the same bytes as
// numpy.save.
func TestWriteMatchesNumpy(t *testing.T) {
	for _, tc := range []struct {
		file  string
		write func(io.Writer) error
	}{
		{"f8_2d.npy", func(w io.Writer) error { return npy.Write(w, fixtures[0].shape, fixtures[0].data) }},
		{"f4_2d.npy", func(w io.Writer) error { return npy.WriteFloat32(w, fixtures[1].shape, fixtures[1].data) }},
		{"b1_1d.npy", func(w io.Writer) error {
			return npy.WriteBool(w, []int{5}, []bool{true, false, true, true, false})
		}},
		{"scalar_f8.npy", func(w io.Writer) error { return npy.Write(w, nil, []float64{3.5}) }},
		{"empty_f8.npy", func(w io.Writer) error { return npy.Write(w, []int{0}, nil) }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := tc.write(&buf); err != nil {
				t.Fatal(err)
			}
			if got := buf.Bytes(); !bytes.Equal(got, want) {
				t.Errorf("wrote\n%q\nnumpy wrote\n%q", got, want)
			}
		})
	}
}

func TestWriteLargeHeaderUsesVersion2(t *testing.T) {
	// 20000 dimensions of size 1 need a header of about 60000 bytes;
	// 30000 need more than 65535 and so version 2.0.
	for _, tc := range []struct {
		ndim  int
		major int
	}{{20000, 1}, {30000, 2}} {
		shape := make([]int, tc.ndim)
		for i := range shape {
			shape[i] = 1
		}
		var buf bytes.Buffer
		if err := npy.Write(&buf, shape, []float64{42}); err != nil {
			t.Fatal(err)
		}
		h, err := npy.ReadHeader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if h.Major != tc.major || h.DataOffset%64 != 0 || len(h.Shape) != tc.ndim {
			t.Errorf("%d dims: version %d.%d, data offset %d, %d dims; want version %d.0, aligned", tc.ndim, h.Major, h.Minor, h.DataOffset, len(h.Shape), tc.major)
		}
		a, err := npy.Read(bytes.NewReader(buf.Bytes()))
		if err != nil || len(a.Data) != 1 || a.Data[0] != 42 {
			t.Errorf("%d dims: Read = %v, %v; want [42]", tc.ndim, a, err)
		}
	}
}

// TestReadHandBuilt reads files built byte by byte, covering what the
// NumPy fixtures do not.
func TestReadHandBuilt(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	for _, tc := range []struct {
		name  string
		file  []byte
		shape []int
		data  []float64
	}{
		{"v2", build(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", encode(le, 1.5, -2.0)), []int{2}, []float64{1.5, -2}},
		{"v3", build(3, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }", encode(le, float32(0.25), float32(8))), []int{1, 2}, []float64{0.25, 8}},
		{">f8", build(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (3,), }", encode(be, 0.1, math.Inf(-1), 1e-300)), []int{3}, []float64{0.1, math.Inf(-1), 1e-300}},
		{">f4", build(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", encode(be, float32(1.5), float32(-3))), []int{2}, []float64{1.5, -3}},
		{">f2", build(1, "{'descr': '>f2', 'fortran_order': False, 'shape': (3,), }", encode(be, uint16(0x3c00), uint16(0xfc00), uint16(0x8001))), []int{3}, []float64{1, math.Inf(-1), -math.Ldexp(1, -24)}},
		{"<i1", build(1, "{'descr': '<i1', 'fortran_order': False, 'shape': (3,), }", encode(le, int8(-128), int8(0), int8(127))), []int{3}, []float64{-128, 0, 127}},
		{"|i1", build(1, "{'descr': '|i1', 'fortran_order': False, 'shape': (2,), }", encode(le, int8(-1), int8(5))), []int{2}, []float64{-1, 5}},
		{"|u1", build(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", []byte{0, 255}), []int{2}, []float64{0, 255}},
		{"<i2", build(1, "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", encode(le, int16(-32768), int16(300))), []int{2}, []float64{-32768, 300}},
		{">i2", build(1, "{'descr': '>i2', 'fortran_order': False, 'shape': (2,), }", encode(be, int16(-32768), int16(300))), []int{2}, []float64{-32768, 300}},
		{"<u2", build(1, "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", encode(le, uint16(65535))), []int{1}, []float64{65535}},
		{">u2", build(1, "{'descr': '>u2', 'fortran_order': False, 'shape': (1,), }", encode(be, uint16(65534))), []int{1}, []float64{65534}},
		{"<i4", build(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", encode(le, int32(math.MinInt32), int32(9))), []int{2}, []float64{math.MinInt32, 9}},
		{"<u4", build(1, "{'descr': '<u4', 'fortran_order': False, 'shape': (1,), }", encode(le, uint32(math.MaxUint32))), []int{1}, []float64{math.MaxUint32}},
		{">u4", build(1, "{'descr': '>u4', 'fortran_order': False, 'shape': (1,), }", encode(be, uint32(7))), []int{1}, []float64{7}},
		{"<i8", build(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", encode(le, int64(-1), int64(1<<40))), []int{2}, []float64{-1, 1 << 40}},
		{">i8", build(1, "{'descr': '>i8', 'fortran_order': False, 'shape': (2,), }", encode(be, int64(-1), int64(1<<40))), []int{2}, []float64{-1, 1 << 40}},
		{"<u8", build(1, "{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }", encode(le, uint64(1<<63))), []int{1}, []float64{1 << 63}},
		{">u8", build(1, "{'descr': '>u8', 'fortran_order': False, 'shape': (1,), }", encode(be, uint64(12))), []int{1}, []float64{12}},
		{"=f8 native", build(1, "{'descr': '=f8', 'fortran_order': False, 'shape': (1,), }", encode(le, 2.5)), []int{1}, []float64{2.5}},
		{"|b1 nonzero is true", build(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", []byte{0, 1, 2, 255}), []int{4}, []float64{0, 1, 1, 1}},
		{"fortran 2-d", build(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", encode(le, 11.0, 21.0, 12.0, 22.0, 13.0, 23.0)), []int{2, 3}, []float64{11, 12, 13, 21, 22, 23}},
		{"fortran 3-d big-endian int", build(1, "{'descr': '>i2', 'fortran_order': True, 'shape': (2, 3, 2), }",
			// Element (i, j, k) holds 100i+10j+k and sits at i + 2j + 6k.
			encode(be, int16(0), int16(100), int16(10), int16(110), int16(20), int16(120),
				int16(1), int16(101), int16(11), int16(111), int16(21), int16(121))),
			[]int{2, 3, 2}, []float64{0, 1, 10, 11, 20, 21, 100, 101, 110, 111, 120, 121}},
		{"fortran with unit axes", build(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 1, 3, 1), }", encode(le, 11.0, 21.0, 12.0, 22.0, 13.0, 23.0)), []int{2, 1, 3, 1}, []float64{11, 12, 13, 21, 22, 23}},
		{"fortran 1-d", build(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (3,), }", encode(le, 1.0, 2.0, 3.0)), []int{3}, []float64{1, 2, 3}},
		{"fortran 0-d", build(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (), }", encode(le, 9.0)), []int{}, []float64{9}},
		{"fortran empty", build(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (0, 3), }", nil), []int{0, 3}, []float64{}},
		{"python 2 L suffix", build(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1L, 2L), }", encode(le, 1.0, 2.0)), []int{1, 2}, []float64{1, 2}},
		{"keys in any order", build(1, "{'shape': (2,), 'fortran_order': False, 'descr': '<f8'}", encode(le, 1.0, 2.0)), []int{2}, []float64{1, 2}},
		{"whitespace everywhere", build(1, " {  'descr' :'<f8' ,\t'fortran_order':False,'shape':( 2 , ) ,  }  ", encode(le, 1.0, 2.0)), []int{2}, []float64{1, 2}},
		{"double quotes", build(1, `{"descr": "<f8", "fortran_order": False, "shape": (1,)}`, encode(le, 4.0)), []int{1}, []float64{4}},
		{"trailing comma in tuple", build(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2,), }", encode(le, 1.0, 2.0)), []int{1, 2}, []float64{1, 2}},
		{"16-byte alignment", buildAligned(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", encode(le, 6.0), 16), []int{1}, []float64{6}},
		{"no alignment", buildAligned(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", encode(le, 6.0), 1), []int{1}, []float64{6}},
		{"no trailing newline", func() []byte {
			b := build(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", encode(le, 6.0))
			b[bytes.IndexByte(b, '\n')] = ' '
			return b
		}(), []int{1}, []float64{6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, r := range readers(tc.file) {
				a, err := npy.Read(r())
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !slices.Equal(a.Shape, tc.shape) || a.Shape == nil {
					t.Errorf("%s: shape = %#v, want %#v", name, a.Shape, tc.shape)
				}
				if !sameFloats(a.Data, tc.data) {
					t.Errorf("%s: data = %v, want %v", name, a.Data, tc.data)
				}
			}
		})
	}
}

// TestReadFortranManyAxes reads a Fortran-order array with thousands of
// axes of length 1, which must neither be slow nor scramble the data.
func TestReadFortranManyAxes(t *testing.T) {
	const n, ones = 100000, 5000
	shape := "(" + strings.Repeat("1, ", ones) + "2, " + strconv.Itoa(n/2) + ")"
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i)
	}
	file := build(1, "{'descr': '|u1', 'fortran_order': True, 'shape': "+shape+", }", data)
	a, err := npy.Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Shape) != ones+2 || len(a.Data) != n {
		t.Fatalf("read %d axes and %d values, want %d and %d", len(a.Shape), len(a.Data), ones+2, n)
	}
	// C index r*(n/2)+c holds Fortran index r+2c.
	for _, rc := range [][2]int{{0, 0}, {0, 1}, {1, 0}, {1, n/2 - 1}} {
		r, c := rc[0], rc[1]
		if got, want := a.Data[r*(n/2)+c], float64(byte(r+2*c)); got != want {
			t.Errorf("element (%d, %d) = %v, want %v", r, c, got, want)
		}
	}
}

// TestReadTruncated reads every proper prefix of every fixture: each must
// fail with an error that wraps io.ErrUnexpectedEOF, and none may panic.
func TestReadTruncated(t *testing.T) {
	for _, f := range fixtures {
		b, err := os.ReadFile(filepath.Join("testdata", f.file))
		if err != nil {
			t.Fatal(err)
		}
		for n := range len(b) {
			for name, r := range readers(b[:n]) {
				a, err := npy.Read(r())
				if err == nil {
					t.Errorf("%s: %d of %d bytes, %s: no error, read %v", f.file, n, len(b), name, a)
					continue
				}
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("%s: %d of %d bytes, %s: error %q does not wrap io.ErrUnexpectedEOF", f.file, n, len(b), name, err)
				}
			}
		}
	}
}

func TestReadMalformed(t *testing.T) {
	valid := func(dict string) []byte { return build(1, dict, make([]byte, 8)) }
	v1 := func(hlen uint16, rest string) []byte {
		return append(binary.LittleEndian.AppendUint16([]byte("\x93NUMPY\x01\x00"), hlen), rest...)
	}
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, `npy: empty input`},
		{"zip file", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"), `npy: bad magic: want "\x93NUMPY", found "PK\x03\x04\x14\x00"..`},
		{"short bad magic", []byte("\x93NUMPZ"), `bad magic`},
		{"partial magic", []byte("\x93NUM"), `truncated preamble: want at least 8 bytes`},
		{"version 9.0", []byte("\x93NUMPY\x09\x00\x10\x00{}"), `unsupported format version 9.0 (want 1.0, 2.0 or 3.0)`},
		{"version 1.1", []byte("\x93NUMPY\x01\x01\x10\x00{}"), `unsupported format version 1.1`},
		{"version 0.0", []byte("\x93NUMPY\x00\x00\x10\x00{}"), `unsupported format version 0.0`},
		{"missing header length", []byte("\x93NUMPY\x02\x00\x10\x00"), `want a 4-byte header length, found 2 bytes`},
		{"npyio crasher", []byte("\x93NUMPY\x01\x00\x04\x00abcd"), `want '{' to start the header dict, found "abcd"`},
		{"header length past EOF", v1(1000, "{'descr': '<f8'"), `header length 1000 goes past the end of the input`},
		{"header length past EOF v2", append([]byte("\x93NUMPY\x02\x00\xff\xff\xff\xff"), "{}"...), `header length 4294967295 goes past the end`},
		{"empty header", v1(0, ""), `want '{' to start the header dict, found end of header`},
		{"missing descr", valid("{'fortran_order': False, 'shape': (1,), }"), `missing key 'descr'`},
		{"missing fortran_order", valid("{'descr': '<f8', 'shape': (1,), }"), `missing key 'fortran_order'`},
		{"missing shape", valid("{'descr': '<f8', 'fortran_order': False, }"), `missing key 'shape'`},
		{"extra key", valid("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}"), `unexpected key "x"`},
		{"duplicate key", valid("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}"), `duplicate key "descr"`},
		{"complex dtype", valid("{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }"), `npy: unsupported dtype "<c16" (want a real or bool dtype`},
		{"object dtype", valid("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"), `unsupported dtype "|O"`},
		{"unicode dtype", valid("{'descr': '<U10', 'fortran_order': False, 'shape': (1,), }"), `unsupported dtype "<U10"`},
		{"long double", valid("{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }"), `unsupported dtype "<f16"`},
		{"datetime", valid("{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (1,), }"), `unsupported dtype "<M8[ns]"`},
		{"unknown dtype", valid("{'descr': 'xyz', 'fortran_order': False, 'shape': (1,), }"), `unsupported dtype "xyz"`},
		{"structured dtype", valid("{'descr': [('a', '<f8'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }"), `unsupported structured dtype "[('a', '<f8'), ('b', '<i4')]"`},
		{"descr not a string", valid("{'descr': 8, 'fortran_order': False, 'shape': (1,), }"), `'descr' must be a string, found 8`},
		{"fortran_order not a bool", valid("{'descr': '<f8', 'fortran_order': 0, 'shape': (1,), }"), `'fortran_order' must be True or False, found 0`},
		{"shape is a list", valid("{'descr': '<f8', 'fortran_order': False, 'shape': [1], }"), `'shape' must be a tuple of integers, found [1]`},
		{"shape holds a string", valid("{'descr': '<f8', 'fortran_order': False, 'shape': ('1',), }"), `'shape' must be a tuple of integers, found '1'`},
		{"shape holds a float", valid("{'descr': '<f8', 'fortran_order': False, 'shape': (1.0,), }"), `want an integer, found "1.0,)`},
		{"negative shape", valid("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }"), `negative dimension -1 in shape (-1,)`},
		{"shape overflow", valid("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }"), `product overflows an int`},
		{"dimension beyond int64", valid("{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551616,), }"), `integer 18446744073709551616 does not fit in 64 bits`},
		{"non-terminated dict", valid("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), "), `header dict is not terminated`},
		{"non-terminated tuple", valid("{'descr': '<f8', 'fortran_order': False, 'shape': (1, "), `want ')' to close '(', found end of header`},
		{"non-terminated string", valid("{'descr': '<f8, 'fortran_order': False}"), `want ',' or '}' after the value of "descr", found "fortran_order'`},
		{"unterminated string at end", valid("{'descr"), `unterminated string`},
		{"garbage after dict", valid("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), } x"), `want only padding after the header dict, found "x `},
		{"missing colon", valid("{'descr' '<f8'}"), `want ':' after key "descr"`},
		{"missing comma", valid("{'descr': '<f8' 'shape': (1,)}"), `want ',' or '}' after the value of "descr"`},
		{"bare word", valid("{'descr': float64}"), `want a string, number, tuple, list, True or False, found "float64}`},
		{"Truely", valid("{'descr': '<f8', 'fortran_order': Truely, 'shape': (1,)}"), `want True or False, found "Truely`},
		{"deep nesting", valid("{'descr': " + strings.Repeat("[", 100) + "}"), `nested more than 32 deep`},
		{"truncated data", build(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", make([]byte, 20)), `npy: truncated: header says 3 elements (24 bytes), found only 20 bytes: the data stops at element 3 of 3`},
		{"truncated matrix", build(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", make([]byte, 17)), `npy: truncated: header says 6 elements (24 bytes), found only 17 bytes: the data stops in row 3 of 3`},
		{"truncated at a row's end", build(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", make([]byte, 8)), `found only 8 bytes: the data stops in row 2 of 3`},
		{"truncated Fortran matrix", build(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }", make([]byte, 8)), `found only 8 bytes: the data stops at element 3 of 6`},
		{"trailing bytes", build(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", make([]byte, 13)), `npy: 5 bytes after the data`},
		{"two arrays", append(build(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", make([]byte, 8)),
			build(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", make([]byte, 8))...), `npy: 136 bytes after the data`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, r := range readers(tc.file) {
				a, err := npy.Read(r())
				if err == nil {
					t.Errorf("%s: no error, read %+v; want an error containing %q", name, a, tc.want)
					continue
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: error %q does not contain %q", name, err, tc.want)
				}
			}
		})
	}
}

// TestReadHugeClaim checks that a header claiming far more data than the
// input holds fails without allocating the claimed size.
func TestReadHugeClaim(t *testing.T) {
	file := build(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }", make([]byte, 100))
	want := "npy: truncated: header says 1000000000000 elements (8000000000000 bytes), found only 100 bytes: the data stops in row 1 of 1000000"
	for name, r := range readers(file) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := npy.Read(r())
		runtime.ReadMemStats(&after)
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
			t.Errorf("%s: allocated %d bytes reading a %d-byte file", name, alloc, len(file))
		}
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.npy")
	if _, err := npy.ReadFile(missing); err == nil || !strings.HasPrefix(err.Error(), "read "+missing+": ") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v, want it to start with %q and wrap os.ErrNotExist", err, "read "+missing+": ")
	}
	bad := filepath.Join(dir, "bad.npy")
	if err := os.WriteFile(bad, []byte("PK\x03\x04 not an npy file"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "read " + bad + `: npy: bad magic: want "\x93NUMPY", found "PK\x03\x04 n"..`
	if _, err := npy.ReadFile(bad); err == nil || err.Error() != want {
		t.Errorf("bad file: error %v, want %q", err, want)
	}
}

func TestWriteErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape []int
		n     int
		want  string
	}{
		{"too few values", []int{2, 3}, 5, "npy: shape [2 3] needs 6 values, found 5"},
		{"too many values", []int{2}, 3, "npy: shape [2] needs 2 values, found 3"},
		{"scalar needs one value", nil, 0, "npy: shape [] needs 1 values, found 0"},
		{"negative", []int{2, -3}, 6, "npy: negative dimension -3 at axis 1"},
		{"overflow", []int{1 << 40, 1 << 40}, 1, "product overflows an int"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := npy.Write(&buf, tc.shape, make([]float64, tc.n))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Write: error %v, want it to contain %q", err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("Write wrote %d bytes before failing", buf.Len())
			}
			if err := npy.WriteBool(&buf, tc.shape, make([]bool, tc.n)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("WriteBool: error %v, want it to contain %q", err, tc.want)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "x.npy")
			if err := npy.WriteFile(path, tc.shape, make([]float64, tc.n)); err == nil || !strings.HasPrefix(err.Error(), "write "+path+": ") {
				t.Errorf("WriteFile: error %v, want it to start with %q", err, "write "+path+": ")
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("WriteFile left %v behind", ents)
			}
		})
	}
}

// failWriter fails after accepting n bytes.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWriteReportsWriterErrors(t *testing.T) {
	for _, n := range []int{0, 100, 128 + 1000} {
		err := npy.Write(&failWriter{n: n}, []int{100000}, make([]float64, 100000))
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("writer failing after %d bytes: error %v, want it to report the failure", n, err)
		}
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()

	// A directory that does not exist: an error, and nothing created.
	nodir := filepath.Join(dir, "no", "such", "dir", "a.npy")
	if err := npy.WriteFile(nodir, []int{1}, []float64{1}); err == nil || !strings.HasPrefix(err.Error(), "write "+nodir+": ") {
		t.Errorf("missing directory: error %v, want it to start with %q", err, "write "+nodir+": ")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("missing directory: left %v behind", ents)
	}

	// Overwriting keeps the permissions of the old file and leaves no
	// temporary file.
	path := filepath.Join(dir, "a.npy")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFileFloat32(path, []int{2}, []float64{1, 2}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("permissions = %v, want 0600 kept", fi.Mode().Perm())
	}
	a, err := npy.ReadFile(path)
	if err != nil || !slices.Equal(a.Data, []float64{1, 2}) || a.Descr != "<f4" {
		t.Errorf("ReadFile = %+v, %v; want <f4 [1 2]", a, err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Errorf("directory holds %v, want only a.npy", ents)
	}

	// A new file gets 0644 (less the umask).
	path2 := filepath.Join(dir, "b.npy")
	if err := npy.WriteFile(path2, nil, []float64{7}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path2); err != nil || fi.Mode().Perm()&^0o644 != 0 {
		t.Errorf("new file: %v, %v; want permissions within 0644", fi.Mode(), err)
	}

	// Writing over a directory fails and leaves it alone.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(sub, []int{1}, []float64{1}); err == nil {
		t.Errorf("writing over a directory: no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("after failed writes the directory holds %v, want a.npy, b.npy and sub", ents)
	}
}

// readBudget bounds what one Read of an n-byte input may allocate.
//
// Per byte of input, 128: the data is at most 8 bytes of float64 per byte
// of file (a 1-byte dtype), allocated twice when it arrives from a stream
// (append doubles) and once more to reorder a Fortran array, so 32; the
// header's parser keeps, for each value, its text and a 32-byte pyValue
// (plus a boxed int64), and a tuple's text holds its elements' texts, so
// nested tuples (at most 32 deep) copy a byte up to 32 times: 40 + 32,
// and the error messages quote at most a few dozen bytes. Fixed, 4 MiB:
// the header is read in chunks of up to 1 MiB (readBounded), the data
// through a 64 KiB buffer into a slice of at most 64 Ki float64s (512 KiB)
// before any data has arrived, and small buffers and messages besides.
var readBudget = fuzzbudget.Budget{PerByte: 128, Fixed: 4 << 20}

// FuzzRead checks that Read never panics, that whatever it returns
// without an error is consistent, and that it allocates within
// readBudget: a header's declared shape must never size an allocation
// that the input does not back.
func FuzzRead(f *testing.F) {
	ents, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".npy") {
			continue
		}
		b, err := os.ReadFile(filepath.Join("testdata", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(append(slices.Clone(b), 0))
		c := slices.Clone(b)
		c[len(c)/3] ^= 0xff
		f.Add(c)
	}
	f.Add([]byte("\x93NUMPY\x01\x00\x04\x00abcd"))
	f.Add(build(1, "{'descr': '>i2', 'fortran_order': True, 'shape': (2, 1, 2), }", make([]byte, 8)))
	f.Add(build(3, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1L,), }", make([]byte, 8)))
	f.Add(build(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }", nil))
	f.Add(build(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (1000000, 1000000), }", make([]byte, 10)))
	// Edge cases of the budget: a shape of 10^12 in a 100-byte file, a
	// 4 GiB header length in a short file (version 2.0), deep nesting,
	// and a 1-byte dtype in Fortran order (the largest legitimate growth).
	f.Add(build(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", make([]byte, 100)))
	f.Add([]byte("\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr': '<f8'"))
	f.Add(build(1, "{'descr': '<f8', 'fortran_order': False, 'shape': ((((((((((1,),),),),),),),),),), }", nil))
	f.Add(build(1, "{'descr': '|u1', 'fortran_order': True, 'shape': (4, 8, 2), }", make([]byte, 64)))
	f.Add(build(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (0, 1000000000000), }", nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		for name, r := range readers(b) {
			var a *npy.Array
			var err error
			fuzzbudget.Check(t, "Read ("+name+")", len(b), readBudget, func() { a, err = npy.Read(r()) })
			if err != nil {
				if a != nil {
					t.Errorf("%s: Read returned an array and an error %v", name, err)
				}
				continue
			}
			n := 1
			for _, d := range a.Shape {
				if d < 0 {
					t.Fatalf("%s: negative dimension in shape %v", name, a.Shape)
				}
				n *= d
			}
			if len(a.Data) != n {
				t.Fatalf("%s: shape %v holds %d elements, but len(Data) = %d", name, a.Shape, n, len(a.Data))
			}
			h, err := npy.ReadHeader(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s: Read succeeded but ReadHeader failed: %v", name, err)
			}
			// Reading in chunks gives the same, but for Fortran-order
			// arrays that it refuses.
			if _, got, err := readChunks(bytes.NewReader(b), 3); err == nil && !sameFloats(got, a.Data) {
				t.Fatalf("%s: reading in chunks of 3 gave %v, Read %v", name, got, a.Data)
			} else if err != nil && !h.FortranOrder {
				t.Fatalf("%s: Read succeeded but reading in chunks failed: %v", name, err)
			}
			if h.Descr != a.Descr || !slices.Equal(h.Shape, a.Shape) {
				t.Fatalf("%s: ReadHeader = %+v, Read = %v %v", name, h, a.Descr, a.Shape)
			}
		}
	})
}
